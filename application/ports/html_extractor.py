"""The HTML extractor port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the ports package loads with every store command
    from ...domain.document.document import Document


class HtmlExtractor(Protocol):
    """Turns an HTML page into the article's structured text and metadata.

    Raises `SheafError(EMPTY)` when the page holds no main content.
    """

    async def extract(self, body: bytes, *, url: str, charset: str | None = None) -> Document:
        """Extract `body`, served from `url`; `charset` is the one the server declared."""
        ...

    def extract_sync(self, body: bytes, url: str, charset: str | None = None) -> Document:
        """`extract` for a caller already off the event loop: the same document, read in
        the calling thread."""
        ...
