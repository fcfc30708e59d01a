"""The in-memory store's search index: the domain's BM25 and cosine over the current
snippets, scanned on every search (only the index machinery differs from the real
stores, not the ranking)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ....domain.analysis.chunking import Chunk
from ....domain.analysis.retrieval_prefix import marker_free
from ....domain.search.bm25 import bm25_scores
from ....domain.search.embeddings import EmbeddingModel, cosine
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from ....domain.store.knowledge_records import VersionRecord
from .state import CommittedState


class MemorySearchIndex:
    """Rankings over the committed state's current snippets."""

    def __init__(self, committed: CommittedState) -> None:
        self._committed = committed

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS) -> list[tuple[str, float]]:
        snippets = self._current_snippets(space, filters)
        scores = bm25_scores([marker_free(c.retrieval_text) for c in snippets], query)
        return _ranked(zip(snippets, scores, strict=True), limit, positive=True)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS) -> list[tuple[str, float]]:
        state = self._committed.current
        model.require_same(state.models.get(space), space)
        scored = [(c, cosine(vector, stored)) for c in self._current_snippets(space, filters)
                  if (stored := state.vectors.get(c.id.rsplit(":", 2)[0], {}).get(c.id))
                  is not None]
        return _ranked(scored, limit, positive=False)

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        found = {c.id: c for c in self._current_snippets(space, NO_FILTERS)}
        return [found[i] for i in chunk_ids if i in found]

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return self._committed.current.models.get(space)

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        found = [(d, cosine(fingerprint, stored))
                 for d, (in_space, stored) in self._committed.current.fingerprints.items()
                 if in_space == space]
        return sorted(((d, s) for d, s in found if s >= threshold), key=lambda p: (-p[1], p[0]))

    def _current_snippets(self, space: str, filters: SearchFilters) -> list[Chunk]:
        state = self._committed.current
        found = []
        for document_id, versions in state.versions.items():
            current = versions[-1]
            if current.space == space and _passes(document_id, current, filters):
                found += [c for c in state.chunks.get(current.id, ())
                          if c.level == "snippet" and filters.admits_section(c.section_label)]
        return found


def _passes(document_id: str, version: VersionRecord, filters: SearchFilters) -> bool:
    return ((not filters.document_ids or document_id in filters.document_ids)
            and (not filters.content_sources
                 or version.content_source in filters.content_sources)
            and all(version.caller_metadata.get(k) == v for k, v in filters.metadata))


def _ranked(scored: Iterable[tuple[Chunk, float]], limit: int, *, positive: bool
            ) -> list[tuple[str, float]]:
    kept = [(c.id, s) for c, s in scored if s > 0 or not positive]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0]))[:limit]
