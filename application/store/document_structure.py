"""A stored document's structure: its text with the sections and profile stored with its
version, and its chunks cut again from them."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ...domain.analysis.chunking import Chunk, estimate_tokens
from ...domain.analysis.sections import Section
from ...domain.analysis.text_profile import TextProfile
from ...domain.store.document_analysis import StoredStructure, rechunk, stored_structure
from ...domain.store.knowledge_records import DocumentRecord
from ..concurrency.worker_pool import WorkerPool
from .document_catalogue import DocumentCatalogue


@attrs.frozen
class StructuredDocument:
    """A document with its canonical text and what is derived from it."""

    document: DocumentRecord
    text: str
    structure: StoredStructure

    @property
    def profile(self) -> TextProfile:
        return self.structure.profile

    @property
    def sections(self) -> tuple[Section, ...]:
        return self.structure.sections

    def chunks(self, *, retrieval_prefix: bool = True,
               count: Callable[[str], int] = estimate_tokens,
               input_limit: int | None = None) -> tuple[Chunk, ...]:
        """Section and snippet chunks, cut to the sizes the version was cut to.
        `retrieval_prefix` puts the title, heading path and label before each chunk's
        retrieval text; `count` is the token counter (the embedder's,
        `Embedder.token_counting`), `input_limit` the most its model reads."""
        current = self.document.current
        return rechunk(self.text, current.blocks, self.structure, current.id,
                       self.document.title, count, input_limit, retrieval_prefix)


class DocumentStructure:
    """Loads a stored document with its stored structure. A version stored before
    structure was kept gets it computed once, on its first load, and saved."""

    def __init__(self, catalogue: DocumentCatalogue, pool: WorkerPool | None = None) -> None:
        self._catalogue = catalogue
        self._pool = pool or WorkerPool()

    async def load(self, space: str, reference: str) -> StructuredDocument:
        document = await self._catalogue.get(space, reference)
        text = await self._catalogue.markdown(document)
        storage = self._catalogue.storage
        structure = await storage.catalogue.structure(space, document.current.id)
        if structure is None:
            structure = await self._pool.run(_migrated_structure, document, text)
            async with storage.unit_of_work() as work:
                work.versions.save_structure(space, document.current.id, structure)
                await work.commit()
        return StructuredDocument(document, text, structure)

    async def sections(self, space: str, reference: str) -> tuple[Section, ...]:
        """A document's stored sections, read without its Markdown (which `load` reads
        only for a version stored before structure was kept)."""
        document = await self._catalogue.get(space, reference)
        structure = await self._catalogue.storage.catalogue.structure(
            space, document.current.id)
        if structure is None:
            return (await self.load(space, document.id)).sections
        return structure.sections


def _migrated_structure(document: DocumentRecord, text: str) -> StoredStructure:
    abstract = document.current.metadata.get("abstract")
    return stored_structure(text, document.current.blocks, document.title,
                            str(abstract) if abstract else None,
                            document.current.content_source)
