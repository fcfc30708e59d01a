"""Language-model answers kept by what produced them, so a rerun costs nothing."""

from __future__ import annotations

from typing import Protocol


class AnswerCache(Protocol):
    async def cached_text(self, key: str) -> str | None:
        """A model answer kept under `key` (prompt version, model, input hash)."""
        ...

    async def cache_text(self, key: str, value: str) -> None:
        ...
