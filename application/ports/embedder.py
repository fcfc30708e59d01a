"""The embedder port: texts to vectors of one model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sheaf.domain.embeddings import EmbeddingModel


class Embedder(Protocol):
    """Turns texts into unit vectors of `model.dimension` floats, one per text, in order.
    Failures raise `SheafError` (`embedding_failed`, or the fetch kind of a remote call)."""

    async def model(self) -> EmbeddingModel:
        """The model's name and dimension (a remote embedder may ask its server once)."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        ...

    async def aclose(self) -> None:
        ...
