"""The in-memory store's held blobs: the fake of the held-blobs port (ADR-0047)."""

from __future__ import annotations

from .state import CommittedState


class MemoryHeldBlobs:
    """The blobs the committed state holds, by sha256; written only by a version's unit
    of work (its bundle's `blobs`)."""

    def __init__(self, committed: CommittedState) -> None:
        self._committed = committed

    async def get(self, sha256: str) -> bytes | None:
        return self._committed.current.held_blobs.get(sha256)

    async def has(self, sha256: str) -> bool:
        return sha256 in self._committed.current.held_blobs

    async def delete(self, sha256: str) -> None:
        self._committed.current.held_blobs.pop(sha256, None)

    async def stored_digests(self) -> list[str]:
        return sorted(self._committed.current.held_blobs)
