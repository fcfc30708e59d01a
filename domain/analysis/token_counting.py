"""How an embedder counts its input, and the most it reads: the unit chunk sizes are
counted in (ADR-0015)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ..errors import ErrorKind, SheafError
from .chunking import estimate_tokens


@attrs.frozen
class TokenCounting:
    """`count` gives the length of a text in `unit`s, as the model reads it (special
    tokens included); the model reads at most `limit` of them (None: no limit known).
    `counter` says what counts them (a tokenizer's name, or the estimate used)."""

    unit: str
    counter: str
    limit: int | None = None
    count: Callable[[str], int] = attrs.field(default=estimate_tokens, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.limit is not None and self.limit < 16:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"an input limit of {self.limit} {self.unit} is too small to "
                             "chunk for (16 at least)")

    def describe(self) -> str:
        limit = f"at most {self.limit} read" if self.limit else "no input limit"
        return f"{self.unit} ({self.counter}; {limit})"

    def require_within_limit(self, texts: Sequence[str], model: str) -> None:
        """Refuse texts longer than the model reads: their ends would never be embedded."""
        if self.limit is None:
            return
        counts = [self.count(t) for t in texts]
        over = [c for c in counts if c > self.limit]
        if over:
            raise SheafError(
                ErrorKind.EMBEDDING_FAILED,
                f"{len(over)} of {len(texts)} snippets are longer than {model} reads "
                f"({max(over)} {self.unit}; its limit is {self.limit}): run "
                "`sheaf reindex --embeddings` to chunk them for this model")


ESTIMATED_TOKENS = TokenCounting("tokens", "estimated at 4 characters each")
"""What a model that reads any length is counted in (feature hashing)."""
