"""The in-memory store's answer cache."""

from __future__ import annotations


class MemoryAnswerCache:
    """Language-model answers by key, for as long as the process runs."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}

    async def cached_text(self, key: str) -> str | None:
        return self._cache.get(key)

    async def cache_text(self, key: str, value: str) -> None:
        self._cache[key] = value
