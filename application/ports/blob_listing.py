"""What a blob store that can list its blobs offers besides the blob port: the store's
own folder can, so compaction sweeps the blobs nothing references."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class BlobListing(Protocol):
    async def stored_digests(self) -> list[str]:
        """The sha256 of every blob stored."""
        ...
