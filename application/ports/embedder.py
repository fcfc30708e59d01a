"""The embedder port: texts to vectors of one model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ...domain.analysis.token_counting import TokenCounting
from ...domain.search.embeddings import EmbeddingModel


class Embedder(Protocol):
    """Turns texts into unit vectors of `model.dimension` floats, one per text, in order.
    Failures raise `SheafError` (`embedding_failed`, or the fetch kind of a remote call)."""

    async def model(self) -> EmbeddingModel:
        """The model's name and dimension (a remote embedder may ask its server once)."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        ...

    async def token_counting(self) -> TokenCounting:
        """What the model counts its input in, with a counter, and the most it reads:
        chunk sizes are counted in that unit so that no snippet is cut (ADR-0015)."""
        ...

    async def aclose(self) -> None:
        ...
