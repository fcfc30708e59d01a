"""An in-memory page renderer: the DOM registered for a page's URL, as if its scripts
had run."""

from __future__ import annotations

from ...application.ports.http_client import HttpResponse
from ...application.ports.page_renderer import RenderedPage
from ...domain.errors import ErrorKind, SheafError


class MemoryRenderer:
    """Renders a page to the HTML registered for its URL; an unknown page renders to
    what the server sent. `rendered` lists the URLs rendered, in order."""

    def __init__(self) -> None:
        self._pages: dict[str, bytes] = {}
        self.rendered: list[str] = []
        self.fail: SheafError | None = None

    def add(self, url: str, html: bytes | str) -> None:
        self._pages[url] = html.encode() if isinstance(html, str) else html

    async def render(self, response: HttpResponse) -> RenderedPage:
        self.rendered.append(response.url)
        if self.fail is not None:
            raise self.fail
        if not response.body:
            raise SheafError(ErrorKind.EMPTY, "nothing to render", url=response.url)
        return RenderedPage(self._pages.get(response.url, response.body), response.url, 0)
