"""What identifies an embedding space, and the vectors of one version's snippets."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from ..errors import ErrorKind, SheafError


@attrs.frozen
class EmbeddingModel:
    """An embedder's identity. Vectors from different models are not comparable, so the
    pair is stored with the vectors and checked before every search."""

    name: str
    dimension: int
    lexical: bool = attrs.field(default=False, eq=False)
    """True for a model that only sees shared words (feature hashing): fused with BM25 it
    adds no meaning, so searches default to BM25 alone."""

    def __str__(self) -> str:
        return f"{self.name} ({self.dimension} dimensions)"

    def require_same(self, stored: EmbeddingModel | None, space: str) -> None:
        """Refuse to mix vectors of two models in one space."""
        if stored is not None and stored != self:
            raise SheafError(
                ErrorKind.EMBEDDING_MISMATCH,
                f"space {space!r} holds vectors of {stored}; the configured embedder is "
                f"{self}. Configure the same embedder, or run `sheaf reindex --embeddings` "
                "to re-embed the space with this one")


@attrs.frozen
class ChunkVectors:
    """The vectors of a version's snippets, in the order of `chunk_ids`; unit length."""

    model: EmbeddingModel
    chunk_ids: tuple[str, ...]
    vectors: tuple[tuple[float, ...], ...]

    def __attrs_post_init__(self) -> None:
        if len(self.chunk_ids) != len(self.vectors):
            raise ValueError("one vector per chunk")
        for vector in self.vectors:
            if len(vector) != self.model.dimension:
                raise SheafError(ErrorKind.EMBEDDING_FAILED,
                                 f"{self.model.name} returned a vector of {len(vector)} "
                                 f"dimensions, not {self.model.dimension}")


def unit_vector(values: Sequence[float]) -> tuple[float, ...]:
    """`values` scaled to length 1 (a zero vector stays zero): with unit vectors, cosine
    similarity is the inner product, which is cheaper to scan."""
    norm = math.sqrt(math.fsum(v * v for v in values))
    if norm == 0.0:
        return tuple(0.0 for _ in values)
    return tuple(v / norm for v in values)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0 when either vector is zero."""
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norms if norms else 0.0
