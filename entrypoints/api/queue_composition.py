"""Wiring of the ingest queue (ADR-0023): the queue the settings name, and the blob
store an enqueuing machine puts local files' bytes in."""

from __future__ import annotations

from typing import Any

from ...application.ports.blob_store import BlobStore
from ...domain.errors import ErrorKind, SheafError
from .composition import blob_folder, open_blob_stores
from .settings import Settings


def queue_url(settings: Settings) -> str:
    """The queue's PostgreSQL URL: SHEAF_QUEUE (or --queue-url), else the store's own
    database when the store is PostgreSQL."""
    if settings.queue:
        return settings.queue
    if settings.store_url is not None:
        return settings.store_url
    raise SheafError(ErrorKind.CONFIGURATION,
                     "SHEAF_QUEUE: the ingest queue needs a PostgreSQL database: set "
                     "SHEAF_QUEUE (or --queue-url) to postgresql://user@host:port/database, "
                     "or use a postgresql:// store")


def build_job_queue(settings: Settings, **tuning: Any) -> Any:
    """The procrastinate queue on the settings' database (not opened yet); `tuning` are
    `ProcrastinateJobQueue`'s keyword arguments (retries, heartbeat, grace, ...)."""
    url = queue_url(settings)
    from ...adapters.queue.procrastinate_job_queue import ProcrastinateJobQueue

    return ProcrastinateJobQueue(url, **tuning)


async def enqueue_blob_store(settings: Settings) -> tuple[BlobStore, Any]:
    """The blob store the workers read (the store's own: the bucket SHEAF_BLOBS names,
    else the folder beside the DuckDB file), and the close to call when done."""
    remote = open_blob_stores(settings)
    if remote is not None:
        return remote[0], remote[2]
    from ...adapters.blobs.filesystem_blob_store import FilesystemBlobStore

    async def nothing() -> None:
        return None

    return FilesystemBlobStore(blob_folder(settings.store)), nothing
