"""What every ZIP-package extractor (DOCX, PPTX, XLSX, EPUB) does the same way."""

from __future__ import annotations

import anyio

from ...domain.document.document import Document
from .container_reading import Container


class ContainerExtractor:
    """Opens the package under its safety checks and reads it in a worker thread.

    Subclasses say how one kind of package becomes a document (`read`)."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None) -> None:
        self._limiter = limiter

    async def extract(self, body: bytes, *, location: str) -> Document:
        return await anyio.to_thread.run_sync(self.extract_sync, body, location,
                                              limiter=self._limiter)

    def extract_sync(self, body: bytes, location: str) -> Document:
        container = Container(body)
        try:
            return self.read(container, location)
        finally:
            container.close()

    def read(self, container: Container, location: str) -> Document:
        raise NotImplementedError
