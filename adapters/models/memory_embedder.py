"""An in-memory embedder for tests: deterministic vectors, a call log, injectable failure."""

from __future__ import annotations

from collections.abc import Sequence

from ...domain.analysis.token_counting import ESTIMATED_TOKENS, TokenCounting
from ...domain.errors import SheafError
from ...domain.search.embeddings import EmbeddingModel
from ...domain.search.feature_hashing import hashed_vector, word_features


class MemoryEmbedder:
    """Hashes words into a small space; `calls` records every batch it was given, and
    `failure`, when set, is raised instead of answering. With `input_limit` it reads at
    most that many words (counted like a tokenizer with two special tokens)."""

    def __init__(self, dimension: int = 16, name: str = "memory",
                 input_limit: int | None = None) -> None:
        self._model = EmbeddingModel(name, dimension)
        self._counting = ESTIMATED_TOKENS if input_limit is None else TokenCounting(
            "words", "whitespace words + 2", input_limit, lambda t: len(t.split()) + 2)
        self.calls: list[list[str]] = []
        self.failure: SheafError | None = None

    async def model(self) -> EmbeddingModel:
        return self._model

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(list(texts))
        if self.failure is not None:
            raise self.failure
        return [hashed_vector(word_features(t), self._model.dimension) for t in texts]

    async def token_counting(self) -> TokenCounting:
        return self._counting

    async def aclose(self) -> None:
        return None
