"""An in-memory HTML extractor: answers with documents registered for given bodies."""

from __future__ import annotations

from ...domain.document.document import Document
from ...domain.errors import ErrorKind, SheafError


class MemoryHtmlExtractor:
    """Returns the document registered for a body; an unknown body has no main content."""

    def __init__(self) -> None:
        self._documents: dict[bytes, Document] = {}

    def add(self, body: bytes | str, document: Document) -> None:
        self._documents[body.encode() if isinstance(body, str) else body] = document

    async def extract(self, body: bytes, *, url: str, charset: str | None = None) -> Document:
        return self.extract_sync(body, url, charset)

    def extract_sync(self, body: bytes, url: str, charset: str | None = None) -> Document:
        try:
            return self._documents[body]
        except KeyError:
            raise SheafError(ErrorKind.EMPTY, "no main content in the page", url=url) from None
