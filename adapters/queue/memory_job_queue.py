"""An in-memory job queue with the queue port's contract (retries, locks, summaries),
for tests of the use cases and as the reference the contract suite checks."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import anyio
import attrs

from ...application.ports.job_queue import JobHandler
from ...domain.errors import ErrorKind, SheafError
from ...domain.queue.ingest_jobs import (
    DEFAULT_MAX_ATTEMPTS,
    BatchSummary,
    IngestJob,
    JobOutcome,
    JobState,
    is_transient,
    retry_delay,
)
from ...domain.store.ingestion import IngestResult, IngestStatus


@attrs.define
class _Entry:
    id: int
    job: IngestJob
    state: JobState = JobState.WAITING
    attempts: int = 0
    due: float = 0.0
    result: IngestResult | None = None


class MemoryJobQueue:
    def __init__(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 retry_wait: float = 0.01) -> None:
        self.max_attempts = max_attempts
        self.retry_wait = retry_wait
        self._entries: dict[int, _Entry] = {}
        self._ids = itertools.count(1)
        self._changed = anyio.Event()

    async def enqueue(self, jobs: Sequence[IngestJob]) -> tuple[int, ...]:
        added = [_Entry(next(self._ids), IngestJob.from_args(job.as_args())) for job in jobs]
        self._entries.update((entry.id, entry) for entry in added)
        self._wake()
        return tuple(entry.id for entry in added)

    async def batch(self, batch: str) -> BatchSummary:
        jobs = tuple(JobOutcome(e.id, e.job.source, e.state, e.attempts, e.result)
                     for e in self._entries.values() if e.job.batch == batch)
        if not jobs:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no batch {batch!r} in the queue")
        return BatchSummary(batch, jobs)

    async def work(self, handler: JobHandler, *, concurrency: int = 1,
                   until_idle: bool = False) -> None:
        slots = anyio.Semaphore(concurrency)
        async with anyio.create_task_group() as tasks:
            while True:
                entry = self._next_due()
                if entry is not None:
                    await slots.acquire()
                    entry.state = JobState.RUNNING
                    tasks.start_soon(self._run, handler, entry, slots)
                    continue
                if until_idle and not any(e.state in (JobState.WAITING, JobState.RUNNING)
                                          for e in self._entries.values()):
                    return
                self._changed = anyio.Event()
                with anyio.move_on_after(self._wait_for_next()):
                    await self._changed.wait()

    def _next_due(self) -> _Entry | None:
        running = {e.job.identity for e in self._entries.values()
                   if e.state is JobState.RUNNING}
        now = anyio.current_time()
        for entry in self._entries.values():
            if entry.state is JobState.WAITING and entry.due <= now \
                    and entry.job.identity not in running:
                return entry
        return None

    def _wait_for_next(self) -> float:
        now = anyio.current_time()
        due = [e.due - now for e in self._entries.values() if e.state is JobState.WAITING]
        return max(0.0, min(due)) if due else 1.0

    async def _run(self, handler: JobHandler, entry: _Entry,
                   slots: anyio.Semaphore) -> None:
        try:
            result = await handler(entry.job)
        except SheafError as exc:  # the handler itself failed (a store down, say)
            result = IngestResult(entry.job.source, IngestStatus.FAILED,
                                  error_kind=exc.kind.value, message=str(exc))
        finally:
            slots.release()
        entry.attempts += 1
        entry.result = result
        if result.status is not IngestStatus.FAILED:
            entry.state = JobState.SUCCEEDED
        elif is_transient(result.error_kind) and entry.attempts < self.max_attempts:
            entry.state = JobState.WAITING
            entry.due = anyio.current_time() + retry_delay(entry.attempts - 1,
                                                           base=self.retry_wait)
        else:
            entry.state = JobState.FAILED
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
