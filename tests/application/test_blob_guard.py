"""A removal never deletes a blob that an ingest into another space has written and is
about to commit a version over (blobs are shared by every space of a store)."""

from __future__ import annotations

import anyio
import pytest

from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.application.ingestion.ingestion import IngestOptions
from sheaf.application.store.document_catalogue import DocumentCatalogue
from tests.application.world import NOTES, World

pytestmark = pytest.mark.anyio


class PausingBlobs(MemoryBlobStore):
    """Blobs whose writes stop once armed, until `resume` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.paused, self.resume = anyio.Event(), anyio.Event()

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        sha = await super().put(data, sha256)
        if self.armed:
            self.paused.set()
            await self.resume.wait()
        return sha


async def test_a_removal_waits_for_an_ingest_of_the_same_bytes_to_commit() -> None:
    world = World()
    blobs = PausingBlobs()
    world.ingestion._blobs = blobs  # the same bytes in two spaces share their blobs
    catalogue = DocumentCatalogue(world.storage, blobs)
    first = await world.ingestion.ingest(NOTES, IngestOptions(space="a"))
    assert first.document_id
    blobs.armed = True
    removed = anyio.Event()
    second_result = []

    async def ingest_again() -> None:
        second_result.append(await world.ingestion.ingest(NOTES, IngestOptions(space="b")))

    async def remove_first() -> None:
        await catalogue.remove("a", first.document_id or "")
        removed.set()

    async with anyio.create_task_group() as group:
        group.start_soon(ingest_again)
        await blobs.paused.wait()  # space b's blobs are written, its version not yet
        group.start_soon(remove_first)
        await anyio.sleep(0.05)
        assert not removed.is_set()  # the blob collection waits for b's commit
        blobs.armed = False
        blobs.resume.set()
    (second,) = second_result
    assert second.document_id and removed.is_set()
    stored = await catalogue.get("b", second.document_id)
    assert "Field notes" in await catalogue.markdown(stored)  # its blobs are still there
