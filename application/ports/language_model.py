"""The language model port: chat messages in, one completion out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ...domain.enrichment.completion import Completion


class LanguageModel(Protocol):
    """A chat model. `name` identifies it in caches and labels; failures raise
    `SheafError` (`llm_failed`, `timeout`, `rate_limited`, ...)."""

    @property
    def name(self) -> str:
        ...

    async def complete(self, messages: Sequence[dict[str, str]], max_tokens: int
                       ) -> Completion:
        ...

    async def aclose(self) -> None:
        ...
