"""A stored document's structure, derived on demand: profile, sections and chunks."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from sheaf.application.document_catalogue import DocumentCatalogue
from sheaf.application.worker_pool import WorkerPool
from sheaf.domain.chunking import BlockSpan, Chunk, chunk_document, estimate_tokens
from sheaf.domain.knowledge_records import DocumentRecord
from sheaf.domain.sections import Section, detect_sections, headings_from_blocks
from sheaf.domain.text_profile import TextProfile, profile_text


@attrs.frozen
class StructuredDocument:
    """A document with its canonical text and what is derived from it."""

    document: DocumentRecord
    text: str
    profile: TextProfile
    sections: tuple[Section, ...]

    def chunks(self, *, retrieval_prefix: bool = True,
               count: Callable[[str], int] = estimate_tokens,
               input_limit: int | None = None) -> tuple[Chunk, ...]:
        """Section and snippet chunks. `retrieval_prefix` puts the title, heading path and
        label before each chunk's retrieval text; `count` is the token counter (the
        embedder's, `Embedder.token_counting`), `input_limit` the most its model reads."""
        blocks = [BlockSpan(b.kind, b.start, b.end, b.pages)
                  for b in self.document.current.blocks]
        return chunk_document(self.text, blocks, self.sections,
                              version_id=self.document.current.id, title=self.document.title,
                              count=count, retrieval_prefix=retrieval_prefix,
                              input_limit=input_limit)


class DocumentStructure:
    """Loads a stored document and derives its sections, profile and chunks."""

    def __init__(self, catalogue: DocumentCatalogue, pool: WorkerPool | None = None) -> None:
        self._catalogue = catalogue
        self._pool = pool or WorkerPool()

    async def load(self, space: str, reference: str) -> StructuredDocument:
        document = await self._catalogue.get(space, reference)
        text = await self._catalogue.markdown(document)
        return await self._pool.run(_structure, document, text)


def _structure(document: DocumentRecord, text: str) -> StructuredDocument:
    blocks = document.current.blocks
    headings = headings_from_blocks(text, [(b.kind, b.start, b.end, b.level)
                                           for b in blocks])
    abstract = document.current.metadata.get("abstract")
    sections = detect_sections(text, headings, title=document.title,
                               abstract=str(abstract) if abstract else None)
    profile = profile_text(text, [(b.kind, b.start, b.end) for b in blocks])
    return StructuredDocument(document, text, profile, sections)
