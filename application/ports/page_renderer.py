"""The page renderer port: a web page as a browser shows it after its scripts ran."""

from __future__ import annotations

from typing import Protocol

import attrs

from .http_client import HttpResponse


@attrs.frozen
class RenderedPage:
    """The DOM after rendering, and what the page asked for on the way."""

    html: bytes
    url: str
    requests: int
    """Requests the page made that were judged (each fetched by sheaf itself)."""
    refused: tuple[str, ...] = ()
    """Requests refused, each as `URL: reason`."""


class PageRenderer(Protocol):
    """Renders a page whose first answer sheaf already fetched.

    Every request the page makes goes through sheaf's guarded HTTP client or is
    refused; the browser itself connects nowhere. Raises `SheafError` (`timeout`,
    `too_large`, `too_complex`, `configuration` when no browser is installed)."""

    async def render(self, response: HttpResponse) -> RenderedPage:
        ...
