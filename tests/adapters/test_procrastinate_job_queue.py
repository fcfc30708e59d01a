"""What only the PostgreSQL queue does: jobs of a dead worker go back to the queue, a
stopping worker puts its running jobs back, and an unreachable database is a typed
error naming it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import anyio
import pytest

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.queue.ingest_jobs import IngestJob, JobState
from sheaf.domain.store.ingestion import IngestResult, IngestStatus

pytestmark = pytest.mark.anyio
procrastinate = pytest.importorskip("procrastinate", reason="the queue extra is absent")

from sheaf.adapters.queue.procrastinate_job_queue import QUEUE, ProcrastinateJobQueue  # noqa: E402


@pytest.fixture
async def queue(postgres_database: str) -> AsyncIterator[ProcrastinateJobQueue]:
    async with ProcrastinateJobQueue(postgres_database, max_attempts=3, retry_wait=0.05,
                                     heartbeat=0.3, polling=0.1, grace=0) as opened:
        yield opened


async def _ok(job: IngestJob) -> IngestResult:
    return IngestResult(job.source, IngestStatus.UNCHANGED, document_id="d")


async def _take_and_die(queue: ProcrastinateJobQueue) -> None:
    """What a worker killed mid-job leaves: a job `doing`, owned by a worker that never
    sends another heartbeat."""
    manager = queue._app.job_manager
    dead = await manager.register_worker()
    assert await manager.fetch_job(queues=[QUEUE], worker_id=dead) is not None


async def test_a_dead_workers_job_is_taken_up_by_a_live_one(
        queue: ProcrastinateJobQueue) -> None:
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/killed")])
    await _take_and_die(queue)
    assert (await queue.batch(batch)).jobs[0].state is JobState.RUNNING
    began = anyio.current_time()
    with anyio.fail_after(20):
        await queue.work(_ok, until_idle=True)
    summary = await queue.batch(batch)
    assert summary.states["succeeded"] == 1 and summary.jobs[0].attempts == 2
    # Silent for three heartbeats (0.9 s) and found at the next one: within seconds.
    assert anyio.current_time() - began >= queue.stalled_after


async def test_a_job_that_kills_every_worker_ends_failed(postgres_database: str) -> None:
    async with ProcrastinateJobQueue(postgres_database, max_attempts=1, heartbeat=0.3,
                                     polling=0.1) as queue:
        batch = uuid.uuid4().hex
        await queue.enqueue([IngestJob(batch, "https://example.org/bomb")])
        await _take_and_die(queue)
        with anyio.fail_after(20):
            await queue.work(_ok, until_idle=True)
        (job,) = (await queue.batch(batch)).failures
        assert job.result is not None and job.result.error_kind == "internal"
        assert "stopped answering" in (job.result.message or "")


async def test_a_stopping_worker_puts_its_running_job_back(
        queue: ProcrastinateJobQueue) -> None:
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/slow")])
    started = anyio.Event()

    async def stall(job: IngestJob) -> IngestResult:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(queue.work, stall)
            await started.wait()
            tasks.cancel_scope.cancel()  # what SIGTERM does, with --grace 0
        summary = await queue.batch(batch)
        assert summary.jobs[0].state is JobState.WAITING  # back in the queue, not lost
        await queue.work(_ok, until_idle=True)
    assert (await queue.batch(batch)).states["succeeded"] == 1


async def test_an_unreachable_queue_database_is_a_storage_error_naming_it() -> None:
    queue = ProcrastinateJobQueue("postgresql://sheaf:secret@127.0.0.1:9/jobs")
    with pytest.raises(SheafError) as caught:
        await queue.open()
    assert caught.value.kind is ErrorKind.STORAGE
    assert "127.0.0.1:9/jobs" in str(caught.value) and "secret" not in str(caught.value)
