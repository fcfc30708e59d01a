"""Extractors built when a document of their kind first arrives, in a worker thread.

Importing the PDF engines (pdfminer, pypdfium2, numpy) and the office readers took
~0.7 s of a `sheaf extract` start-up over HTML pages that never needed them
(ADR-0039). Each wrapper here holds a function that imports and builds the real
extractor; the first document routed to it runs that function in a worker thread, so
the imports hold up no other task on the event loop (ADR-0028), and every later one
goes straight to the extractor built then. A process that imports the modules ahead
(a server before it listens) pays only the constructor.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

import anyio

from ...application.ports.format_extractor import FormatExtractor
from ...application.ports.ocr_engine import OcrEngine
from ...application.ports.pdf_extractor import PdfExtractor

if TYPE_CHECKING:
    from collections.abc import Collection

    from ...domain.document.document import Document
    from ...domain.document.extraction_budget import ExtractionBudget
    from ...domain.ocr.recognised_text import OcrPage

T = TypeVar("T")


class _Deferred(Generic[T]):
    """`build()`'s value, made once, in a worker thread: readers that arrive together
    wait for the first's."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        """Whether a document of its kind has arrived and the reader was built."""
        return self._value is not None

    async def _built(self) -> T:
        if self._value is not None:
            return self._value
        return await anyio.to_thread.run_sync(self._once)

    def _once(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value


class DeferredPdfExtractor(_Deferred[PdfExtractor]):
    """A `PdfExtractor` whose engine is imported and built on the first PDF."""

    async def extract(self, body: bytes, *, password: str | None = None) -> Document:
        return await (await self._built()).extract(body, password=password)


class DeferredFormatExtractor(_Deferred[FormatExtractor]):
    """A `FormatExtractor` (DOCX, PPTX, ...) imported and built on its first document."""

    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        return await (await self._built()).extract(body, location=location, budget=budget)


class DeferredOcrEngine(_Deferred[OcrEngine]):
    """An `OcrEngine` imported and built on the first image or scanned page."""

    async def recognise(self, body: bytes, *, pages: Collection[int] | None = None,
                        budget: ExtractionBudget | None = None) -> tuple[OcrPage, ...]:
        return await (await self._built()).recognise(body, pages=pages, budget=budget)
