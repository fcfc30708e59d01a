"""An in-memory PDF extractor: answers with documents registered for given bodies."""

from __future__ import annotations

from ...domain.document.document import Document
from ...domain.errors import ErrorKind, SheafError
from ...domain.routing.routing import has_pdf_magic


class MemoryPdfExtractor:
    """Returns the document registered for a body; refuses non-PDFs like a real extractor."""

    def __init__(self) -> None:
        self._documents: dict[bytes, Document] = {}

    def add(self, body: bytes, document: Document) -> None:
        self._documents[body] = document

    async def extract(self, body: bytes, *, password: str | None = None) -> Document:
        if not has_pdf_magic(body[:2048]):
            raise SheafError(ErrorKind.NOT_A_PDF, "no %PDF- header")
        try:
            return self._documents[body]
        except KeyError:
            raise SheafError(ErrorKind.CORRUPT, "unreadable PDF") from None
