"""What every ZIP-package extractor (DOCX, PPTX, XLSX, EPUB) does the same way."""

from __future__ import annotations

import anyio

from ...domain.document.document import Document
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from .container_reading import Container


class ContainerExtractor:
    """Opens the package under its safety checks and reads it in a worker thread.

    Subclasses say how one kind of package becomes a document (`read`), spending what
    they produce from `container.budget`, a fresh `ExtractionBudget` per document."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        self._limiter = limiter
        self.extraction_limits = extraction_limits

    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        return await anyio.to_thread.run_sync(self.extract_sync, body, location, budget,
                                              limiter=self._limiter)

    def extract_sync(self, body: bytes, location: str,
                     budget: ExtractionBudget | None = None) -> Document:
        container = Container(body, budget=budget if budget is not None
                              else ExtractionBudget(self.extraction_limits))
        try:
            return self.read(container, location)
        finally:
            container.close()

    def read(self, container: Container, location: str) -> Document:
        raise NotImplementedError
