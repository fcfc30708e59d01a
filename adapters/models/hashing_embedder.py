"""The offline default embedder: feature hashing, no model, no network.

Lexical, not semantic (see `sheaf.domain.search.feature_hashing`): it finds passages that share
words with the query, as BM25 does, with a different weighting. Use the local model extra
or an embeddings server for meaning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio

from ...domain.search.embeddings import EmbeddingModel
from ...domain.search.feature_hashing import hashed_vector, word_features

if TYPE_CHECKING:  # token counting imports chunking, which a store only read never needs
    from ...domain.analysis.token_counting import TokenCounting

HASHING_DIMENSION = 256
INLINE_CHARACTERS = 4_096
"""Text an embedding may hold and still be hashed on the caller's thread: a query's few
hundred characters take well under a millisecond, while handing them to a thread and
back cost more than the work (10-20 ms of waiting on a loaded machine)."""


class HashingEmbedder:
    """Words and word pairs hashed into `dimension` signed buckets, unit length."""

    def __init__(self, dimension: int = HASHING_DIMENSION) -> None:
        self._model = EmbeddingModel(f"sheaf-hashing-v1-{dimension}", dimension,
                                     lexical=True)

    async def model(self) -> EmbeddingModel:
        return self._model

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        dimension = self._model.dimension

        def work() -> list[tuple[float, ...]]:
            return [hashed_vector(word_features(t), dimension) for t in texts]

        if sum(len(t) for t in texts) <= INLINE_CHARACTERS:
            return work()
        # Pure Python, and a long document's snippets take milliseconds: off the loop.
        return await anyio.to_thread.run_sync(work)

    async def token_counting(self) -> TokenCounting:
        from ...domain.analysis.token_counting import ESTIMATED_TOKENS

        # Every word of any length is hashed: no limit, sizes stay the usual estimate.
        return ESTIMATED_TOKENS

    async def aclose(self) -> None:
        return None
