"""The port for extractors of one container format (DOCX, PPTX, XLSX, EPUB)."""

from __future__ import annotations

from typing import Protocol

from ...domain.document.document import Document


class FormatExtractor(Protocol):
    """Turns the bytes of one document format into a structured document.

    Raises `SheafError` with kind corrupt (unreadable container or XML), unsafe_content
    (ZIP bomb, member path traversal, XML entity declarations), too_large (a member or a
    sheet over its limit) or empty (no text at all).
    """

    async def extract(self, body: bytes, *, location: str) -> Document:
        """Extract `body`, read from `location` (for error messages and link resolution)."""
        ...
