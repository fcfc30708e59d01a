"""An in-memory OCR engine: answers with pages registered for given bodies."""

from __future__ import annotations

from collections.abc import Collection

from ...domain.document.extraction_budget import ExtractionBudget
from ...domain.errors import ErrorKind, SheafError
from ...domain.ocr.recognised_text import OcrPage


class MemoryOcrEngine:
    """Returns the pages registered for a body (only those asked for); any other body is
    an unreadable image."""

    def __init__(self) -> None:
        self._pages: dict[bytes, tuple[OcrPage, ...]] = {}
        self.calls: list[tuple[int, ...] | None] = []
        """The pages each call asked for, so tests can see what was OCR'd."""

    def add(self, body: bytes, pages: tuple[OcrPage, ...]) -> None:
        self._pages[body] = pages

    async def recognise(self, body: bytes, *, pages: Collection[int] | None = None,
                        budget: ExtractionBudget | None = None) -> tuple[OcrPage, ...]:
        self.calls.append(tuple(sorted(pages)) if pages is not None else None)
        try:
            known = self._pages[body]
        except KeyError:
            raise SheafError(ErrorKind.CORRUPT, "not an image this engine can read") from None
        found = tuple(p for p in known if pages is None or p.number in pages)
        for page in found:  # what a real engine spends: a frame per page read
            if budget is not None:
                budget.spend_frame(page.width, page.height, f"page {page.number}")
        return found
