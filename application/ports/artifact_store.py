"""The artifact port: a version's staged files (Markdown, meta.json, chunks.jsonl)."""

from __future__ import annotations

from typing import Protocol


class ArtifactStore(Protocol):
    """Named files under a key, each written atomically (whole or absent)."""

    async def write(self, key: str, name: str, data: bytes) -> None:
        ...

    async def read(self, key: str, name: str) -> bytes | None:
        """The file's bytes, or None when it was never (completely) written."""
        ...

    async def delete_under(self, prefix: str) -> None:
        """Delete every file whose key is `prefix` or lies under it (`prefix/...`)."""
        ...
