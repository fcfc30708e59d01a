"""The OCR port: words, boxes and confidences recognised in images and scanned PDF pages."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from ...domain.document.extraction_budget import ExtractionBudget
from ...domain.ocr.recognised_text import OcrPage


class OcrEngine(Protocol):
    """Recognises text in raster images (PNG, JPEG, every frame of a TIFF) and in the
    page images of a scanned PDF.

    Raises `SheafError` with kind unsupported_content when the engine is not installed
    (naming what to install), corrupt for an unreadable image, unsafe_content for an
    image too large to decode safely.
    """

    async def recognise(self, body: bytes, *, pages: Collection[int] | None = None,
                        budget: ExtractionBudget | None = None) -> tuple[OcrPage, ...]:
        """The recognised pages of `body` (an image or a PDF); for a PDF only the 1-based
        `pages` given, every page when None. Each frame read is spent from `budget` when
        given (the budget of the document `body` is part of), else from a fresh one."""
        ...
