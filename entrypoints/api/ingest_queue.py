"""`IngestQueue`: the durable ingest queue (ADR-0023) as `Knowledge.open_queue` gives it:
sources enqueued as jobs for `sheaf worker` processes, and the batches they make."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...application.ports.job_queue import JobQueue
    from ...application.queue.queued_ingestion import EnqueuedBatch, QueuedIngestion
    from ...domain.queue.ingest_jobs import BatchSummary, IngestJob
    from ...domain.routing.directory_listing import DirectoryListing
    from .settings import Settings


class IngestQueue:
    """An open queue, with the blob store that local files' bytes go to."""

    def __init__(self, queue: JobQueue, queued: QueuedIngestion) -> None:
        self._queue = queue
        self._queued = queued

    async def listing(self, sources: Sequence[str], *, recursive: bool = False
                      ) -> DirectoryListing:
        """The sources as `enqueue` takes them: each directory replaced by the files
        under it sheaf can read, with the files left out and why."""
        return await self._queued.listing(sources, recursive)

    async def enqueue(self, listing: DirectoryListing, template: IngestJob
                      ) -> EnqueuedBatch:
        """One job per file or URL of `listing`, each with `template`'s space and
        options, in a new batch; a local file's bytes go to the blob store first (a file
        that cannot be read is refused, not enqueued)."""
        return await self._queued.enqueue(listing, template)

    async def batch(self, batch_id: str) -> BatchSummary:
        """A batch's jobs by state and their ingest outcomes, as the queue has them."""
        return await self._queue.batch(batch_id)


@asynccontextmanager
async def open_ingest_queue(settings: Settings) -> AsyncIterator[IngestQueue]:
    """The queue `settings` name, and the store's blob store (the bucket SHEAF_BLOBS
    names, else the folder beside the DuckDB file), both closed when the block ends."""
    from ...adapters.files.filesystem_file_reader import FilesystemFileReader
    from ...application.queue.queued_ingestion import QueuedIngestion
    from .queue_composition import build_job_queue, enqueue_blob_store

    queue = build_job_queue(settings)
    blobs, close_blobs = await enqueue_blob_store(settings)
    try:
        async with queue:
            yield IngestQueue(queue, QueuedIngestion(
                queue, FilesystemFileReader(), blobs, max_bytes=settings.fetch.max_bytes))
    finally:
        await close_blobs()
