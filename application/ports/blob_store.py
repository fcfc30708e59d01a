"""The blob store port: raw bytes and extracted Markdown, addressed by their sha256."""

from __future__ import annotations

from typing import Protocol


class BlobStore(Protocol):
    """Content-addressed bytes. Writes are atomic: a blob is whole or absent."""

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        """Store `data` (a no-op when present) and return its sha256. `sha256` is the
        caller's own hash of these very bytes, when it has one: they are hashed once."""
        ...

    async def get(self, sha256: str) -> bytes:
        """The bytes; `SheafError(DOCUMENT_NOT_FOUND)` when absent."""
        ...

    async def has(self, sha256: str) -> bool:
        ...

    async def delete(self, sha256: str) -> None:
        """Remove a blob; absent blobs are ignored."""
        ...
