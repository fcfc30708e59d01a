"""An in-memory format extractor: answers with documents registered for given bodies."""

from __future__ import annotations

from ...domain.document.document import Document
from ...domain.document.extraction_budget import ExtractionBudget
from ...domain.errors import ErrorKind, SheafError


class MemoryFormatExtractor:
    """Returns the document registered for a body; refuses any other body as corrupt,
    like a real extractor refuses bytes that are not its format."""

    def __init__(self) -> None:
        self._documents: dict[bytes, Document] = {}

    def add(self, body: bytes, document: Document) -> None:
        self._documents[body] = document

    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        try:
            document = self._documents[body]
        except KeyError:
            raise SheafError(ErrorKind.CORRUPT, "not a document this extractor knows",
                             url=location) from None
        if budget is not None:  # what a real reader spends: the text it produced
            budget.spend_characters(len(document.text), location)
        return document
