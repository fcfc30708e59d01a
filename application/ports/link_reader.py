"""The link reader port: every page a web page leads to, for a crawl."""

from __future__ import annotations

from typing import Protocol

import attrs


@attrs.frozen
class PageLinks:
    """The links of one page and what its robots meta tags ask of crawlers."""

    links: tuple[str, ...] = ()
    """Absolute http(s) URLs, in page order, each once, fragments dropped."""
    nofollow: bool = False
    """`<meta name="robots" content="nofollow">`: do not follow its links."""
    noindex: bool = False
    """`<meta name="robots" content="noindex">`: do not store the page."""


class LinkReader(Protocol):
    """Reads the links of a whole HTML page (navigation included, unlike the extracted
    document's links, which are the article's), resolved against its `<base>`."""

    def read(self, body: bytes, *, url: str, charset: str | None = None) -> PageLinks:
        ...
