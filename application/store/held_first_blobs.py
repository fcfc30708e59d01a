"""The blob store as use cases read it when their store holds small blobs itself: the
held blobs first, then the blob store (ADR-0047)."""

from __future__ import annotations

from ..ports.blob_listing import BlobListing
from ..ports.blob_store import BlobStore
from ..ports.held_blobs import HeldBlobs
from .storage import Storage


class HeldFirstBlobs:
    """A `BlobStore` over a store's held blobs and a blob store. Reads look in the held
    ones first (a small document's bytes and Markdown); deletions and listings cover
    both; `put` writes to the blob store, since what is put outside a version's write
    (a queued file, a linked PDF, a large body) must be durable at once."""

    def __init__(self, held: HeldBlobs, blobs: BlobStore) -> None:
        self.held = held
        self.blobs = blobs

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        return await self.blobs.put(data, sha256)

    async def get(self, sha256: str) -> bytes:
        data = await self.held.get(sha256)
        if data is not None:
            return data
        return await self.blobs.get(sha256)

    async def has(self, sha256: str) -> bool:
        return await self.held.has(sha256) or await self.blobs.has(sha256)

    async def delete(self, sha256: str) -> None:
        await self.held.delete(sha256)
        await self.blobs.delete(sha256)

    async def stored_digests(self) -> list[str]:
        """Every blob's sha256, held or in the blob store (when that one can list)."""
        digests = set(await self.held.stored_digests())
        if isinstance(self.blobs, BlobListing):
            digests.update(await self.blobs.stored_digests())
        return sorted(digests)


def blobs_of(storage: Storage, blobs: BlobStore) -> BlobStore:
    """The blobs a use case over `storage` reads: `blobs`, behind the store's held ones
    when it holds some."""
    if storage.held_blobs is None or isinstance(blobs, HeldFirstBlobs):
        return blobs
    return HeldFirstBlobs(storage.held_blobs, blobs)
