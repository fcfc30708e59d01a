"""The journal of removals under way, kept in the artifact store beside the blobs.

A removal commits the database first and then deletes blobs and staged artifacts; a
process killed between the two used to leave the bytes for good (the database no longer
knew the document, so nothing would ever delete them). The removal is written here
before the commit and crossed out after the last deletion; whoever opens the store next
finishes what is written (or, when the commit never happened, drops the entry: the
document is still there and nothing was deleted)."""

from __future__ import annotations

import anyio

from ...domain.store.pending_removal import PendingRemoval, journal_bytes, read_journal
from ..ports.artifact_store import ArtifactStore

JOURNAL_KEY = "journal"
JOURNAL_NAME = "removals.json"


class RemovalJournal:
    """Pending removals, read and rewritten whole (the artifact store writes atomically)
    under one lock per journal."""

    def __init__(self, artifacts: ArtifactStore) -> None:
        self._artifacts = artifacts
        self._lock = anyio.Lock()

    async def pending(self) -> tuple[PendingRemoval, ...]:
        data = await self._artifacts.read(JOURNAL_KEY, JOURNAL_NAME)
        return read_journal(data) if data else ()

    async def add(self, removal: PendingRemoval) -> None:
        async with self._lock:
            await self._write((*await self.pending(), removal))

    async def done(self, removal: PendingRemoval) -> None:
        async with self._lock:
            await self._write(tuple(r for r in await self.pending() if r != removal))

    async def _write(self, removals: tuple[PendingRemoval, ...]) -> None:
        if removals:
            await self._artifacts.write(JOURNAL_KEY, JOURNAL_NAME, journal_bytes(removals))
        else:
            await self._artifacts.delete_under(JOURNAL_KEY)
