"""The search side of the store: ranked snippet ids by words or by vector."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ...domain.search.search_request import NO_FILTERS, SearchFilters

if TYPE_CHECKING:  # annotations only: opening the store need not import chunking
    from ...domain.analysis.chunking import Chunk
    from ...domain.search.embeddings import EmbeddingModel


class SearchIndex(Protocol):
    """Rankings over the current snippets of a space, best first, ties by id."""

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        """Ids of current snippets with their BM25 score over the retrieval text (ids
        only: ranking stays light; `snippets` fetches the winners)."""
        ...

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        """Ids of current snippets with their cosine similarity to `vector`. Refused
        when the space's vectors come from another model."""
        ...

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order given; unknown ids are left out."""
        ...

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        """The model of the space's vectors, or None before any were stored."""
        ...

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        """Documents whose fingerprint has a cosine of at least `threshold` with this
        one, most similar first."""
        ...
