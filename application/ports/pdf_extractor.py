"""The PDF extractor port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the ports package loads with every store command
    from ...domain.document.document import Document


class PdfExtractor(Protocol):
    """Turns PDF bytes into a structured document.

    Raises `SheafError` with kind not_a_pdf, corrupt, encrypted, wrong_password or
    no_text_layer when the bytes cannot give text.
    """

    async def extract(self, body: bytes, *, password: str | None = None) -> Document:
        """Extract `body`, decrypting with `password` when one is needed."""
        ...
