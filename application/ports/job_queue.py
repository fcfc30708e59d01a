"""The job queue port: ingestion jobs that outlive the process that enqueued them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from ...domain.queue.ingest_jobs import BatchSummary, IngestJob
from ...domain.store.ingestion import IngestResult

JobHandler = Callable[[IngestJob], Awaitable[IngestResult]]
"""Runs one job: the ingest's result, `failed` with its kind when it failed."""


class JobQueue(Protocol):
    """A durable queue of ingest jobs and what became of them.

    A job whose result failed with a transient kind (`is_transient`) is tried again after
    `retry_delay`, up to the queue's attempt limit; any other failed result ends it
    `failed` at once. A job whose worker dies is tried again by a live one. Jobs with the
    same `IngestJob.identity` never run at the same time."""

    async def enqueue(self, jobs: Sequence[IngestJob]) -> tuple[int, ...]:
        """Add the jobs, all or none; their ids, in order."""
        ...

    async def batch(self, batch: str) -> BatchSummary:
        """Every job of the batch with its state and last result; `document_not_found`
        for a batch the queue has never seen."""
        ...

    async def work(self, handler: JobHandler, *, concurrency: int = 1,
                   until_idle: bool = False) -> None:
        """Run jobs through `handler`, `concurrency` at a time, until stopped (or, with
        `until_idle`, until no job is waiting, due or running)."""
        ...
