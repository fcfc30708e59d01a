"""The JobQueue contract, run against the in-memory fake and procrastinate on a real
PostgreSQL (tests/postgres_server.py)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import AsyncIterator

import anyio
import pytest

from sheaf.adapters.queue.memory_job_queue import MemoryJobQueue
from sheaf.application.ports.job_queue import JobQueue
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.queue.ingest_jobs import IngestJob, QueuedFile
from sheaf.domain.store.ingestion import IngestResult, IngestStatus

pytestmark = pytest.mark.anyio
MAX_ATTEMPTS = 3


@pytest.fixture(params=["memory", pytest.param("procrastinate", marks=pytest.mark.integration)])
async def queue(request: pytest.FixtureRequest) -> AsyncIterator[JobQueue]:
    if request.param == "memory":
        yield MemoryJobQueue(max_attempts=MAX_ATTEMPTS, retry_wait=0.01)
        return
    pytest.importorskip("procrastinate", reason="procrastinate (the queue extra) is absent")
    from sheaf.adapters.queue.procrastinate_job_queue import ProcrastinateJobQueue

    url = request.getfixturevalue("postgres_database")
    async with ProcrastinateJobQueue(url, max_attempts=MAX_ATTEMPTS, retry_wait=0.05,
                                     heartbeat=0.5, polling=0.1) as opened:
        yield opened


def _batch() -> str:
    return uuid.uuid4().hex[:16]


def _ok(job: IngestJob) -> IngestResult:
    return IngestResult(job.source, IngestStatus.NEW, document_id="d-" + job.source[-1])


async def test_enqueued_jobs_wait_and_an_unknown_batch_is_not_found(queue: JobQueue) -> None:
    batch = _batch()
    ids = await queue.enqueue([IngestJob(batch, f"https://example.org/{i}") for i in range(3)])
    assert len(ids) == 3 and list(ids) == sorted(ids)
    summary = await queue.batch(batch)
    assert [job.source for job in summary.jobs] == [f"https://example.org/{i}"
                                                    for i in range(3)]
    assert summary.states["waiting"] == 3 and not summary.finished
    with pytest.raises(SheafError) as caught:
        await queue.batch(_batch())
    assert caught.value.kind is ErrorKind.DOCUMENT_NOT_FOUND
    await queue.work(_handler(_ok), until_idle=True)  # leave the queue empty


def _handler(outcome):  # type: ignore[no-untyped-def]
    async def handle(job: IngestJob) -> IngestResult:
        return outcome(job)
    return handle


async def test_the_handler_gets_the_job_as_enqueued(queue: JobQueue) -> None:
    batch = _batch()
    job = IngestJob(batch, "notes/a b.pdf", space="papers",
                    file=QueuedFile("/data/notes/a b.pdf", "ab" * 32, "application/pdf"),
                    metadata={"team": "ø"}, force=True, prefer="pdf", enrich="summary",
                    source_id="s-1", version_id="v-1", password="pw")
    await queue.enqueue([job])
    seen: list[IngestJob] = []

    async def handle(given: IngestJob) -> IngestResult:
        seen.append(given)
        return _ok(given)

    await queue.work(handle, until_idle=True)
    assert seen == [job]
    summary = await queue.batch(batch)
    assert summary.finished and summary.states["succeeded"] == 1
    assert summary.jobs[0].result == _ok(job)
    assert summary.outcomes["new"] == 1


async def test_transient_failures_are_retried_until_they_pass(queue: JobQueue) -> None:
    batch = _batch()
    await queue.enqueue([IngestJob(batch, "https://example.org/flaky"),
                         IngestJob(batch, "https://example.org/raising")])
    tries: Counter[str] = Counter()

    async def handle(job: IngestJob) -> IngestResult:
        tries[job.source] += 1
        if tries[job.source] < MAX_ATTEMPTS:
            if job.source.endswith("raising"):
                raise SheafError(ErrorKind.STORAGE, "the store is restarting")
            return IngestResult(job.source, IngestStatus.FAILED, error_kind="timeout",
                                message="slow")
        return _ok(job)

    await queue.work(handle, concurrency=2, until_idle=True)
    summary = await queue.batch(batch)
    assert summary.states["succeeded"] == 2 and not summary.failures
    assert all(job.attempts == MAX_ATTEMPTS for job in summary.jobs)
    assert set(tries.values()) == {MAX_ATTEMPTS}


async def test_input_errors_fail_at_once_and_transient_ones_after_the_last_try(
        queue: JobQueue) -> None:
    batch = _batch()
    await queue.enqueue([IngestJob(batch, "https://example.org/missing"),
                         IngestJob(batch, "https://example.org/down")])
    tries: Counter[str] = Counter()

    async def handle(job: IngestJob) -> IngestResult:
        tries[job.source] += 1
        kind = "not_found" if job.source.endswith("missing") else "server_error"
        return IngestResult(job.source, IngestStatus.FAILED, error_kind=kind, message=kind)

    await queue.work(handle, until_idle=True)
    summary = await queue.batch(batch)
    assert summary.finished and summary.states["failed"] == 2
    assert tries == {"https://example.org/missing": 1, "https://example.org/down": MAX_ATTEMPTS}
    kinds = {job.source: job.result.error_kind for job in summary.failures if job.result}
    assert kinds == {"https://example.org/missing": "not_found",
                     "https://example.org/down": "server_error"}
    assert summary.outcomes["failed"] == 2


async def test_jobs_of_one_source_never_run_at_once(queue: JobQueue) -> None:
    batch = _batch()
    # The same page spelt two ways (one normalised identity), and other pages.
    same = ["https://Example.org/same", "https://example.org:443/same#part"] * 2
    others = [f"https://example.org/other/{i}" for i in range(4)]
    await queue.enqueue([IngestJob(batch, source) for source in same + others])
    running: Counter[str] = Counter()
    overlap: list[str] = []
    most = 0

    async def handle(job: IngestJob) -> IngestResult:
        nonlocal most
        running[job.identity] += 1
        most = max(most, sum(running.values()))
        if running[job.identity] > 1:
            overlap.append(job.source)
        await anyio.sleep(0.05)
        running[job.identity] -= 1
        return _ok(job)

    await queue.work(handle, concurrency=4, until_idle=True)
    assert not overlap
    assert most > 1  # the other sources did run side by side
    assert (await queue.batch(batch)).states["succeeded"] == len(same) + len(others)
