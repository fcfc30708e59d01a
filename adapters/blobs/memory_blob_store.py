"""An in-memory blob store with the same contract as the filesystem one."""

from __future__ import annotations

import hashlib

from ...domain.errors import ErrorKind, SheafError


class MemoryBlobStore:
    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        sha = sha256 or hashlib.sha256(data).hexdigest()
        self.blobs.setdefault(sha, bytes(data))
        return sha

    async def get(self, sha256: str) -> bytes:
        try:
            return self.blobs[sha256]
        except KeyError:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no blob {sha256}") from None

    async def has(self, sha256: str) -> bool:
        return sha256 in self.blobs

    async def delete(self, sha256: str) -> None:
        self.blobs.pop(sha256, None)

    async def stored_digests(self) -> list[str]:
        return sorted(self.blobs)
