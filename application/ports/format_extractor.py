"""The port for extractors of one document format (DOCX, PPTX, XLSX, EPUB, OpenDocument,
RTF)."""

from __future__ import annotations

from typing import Protocol

from ...domain.document.document import Document
from ...domain.document.extraction_budget import ExtractionBudget


class FormatExtractor(Protocol):
    """Turns the bytes of one document format into a structured document.

    Raises `SheafError` with kind corrupt (unreadable container, XML or RTF),
    unsafe_content (ZIP bomb, member path traversal, XML entity declarations), too_large
    (a member or a sheet over its limit), unsupported_content (a package of another
    kind) or empty (no text at all). The document's notes end with the counted
    "left out:" line (`domain/document/omissions`).
    """

    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        """Extract `body`, read from `location` (for error messages and link resolution),
        spending from `budget` when given (the running budget of the document `body` is
        part of, such as an email's), else from a fresh budget of its own."""
        ...
