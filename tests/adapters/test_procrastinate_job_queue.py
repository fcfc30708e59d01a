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


async def _beating(queue: ProcrastinateJobQueue, worker_id: int) -> None:
    """A worker that stays alive (its heartbeat fresh) but never completes its job."""
    while True:
        await queue._app.job_manager.update_heartbeat(worker_id)
        await anyio.sleep(0.1)


async def _take_and_hang(queue: ProcrastinateJobQueue) -> tuple[int, object]:
    manager = queue._app.job_manager
    alive = await manager.register_worker()
    job = await manager.fetch_job(queues=[QUEUE], worker_id=alive)
    assert job is not None
    return alive, job


async def test_a_recorded_job_whose_completion_was_lost_is_finished_by_the_sweep(
        queue: ProcrastinateJobQueue) -> None:
    """The work committed and its result was recorded, then the database went away
    before "finish": a live worker's sweep finishes it (no second run), although the
    worker holding it still beats."""
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/committed")])
    alive, job = await _take_and_hang(queue)
    await queue._record(job.id, job.attempts + 1, IngestResult(  # type: ignore[attr-defined]
        "https://example.org/committed", IngestStatus.NEW, document_id="d"))
    ran: list[str] = []

    async def never(job: IngestJob) -> IngestResult:
        ran.append(job.source)
        return IngestResult(job.source, IngestStatus.UNCHANGED, document_id="d")

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_beating, queue, alive)
            await queue.work(never, until_idle=True)
            tasks.cancel_scope.cancel()
    (outcome,) = (await queue.batch(batch)).jobs
    assert outcome.state is JobState.SUCCEEDED and outcome.attempts == 1
    assert outcome.result is not None and outcome.result.status is IngestStatus.NEW
    assert ran == []  # finished from its record, not run again


async def test_a_job_past_its_lease_is_reclaimed_though_its_worker_beats(
        postgres_database: str) -> None:
    async with ProcrastinateJobQueue(postgres_database, max_attempts=3, heartbeat=0.2,
                                     polling=0.1, lease=0.5) as queue:
        batch = uuid.uuid4().hex
        await queue.enqueue([IngestJob(batch, "https://example.org/wedged")])
        alive, _ = await _take_and_hang(queue)
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_beating, queue, alive)
                await queue.work(_ok, until_idle=True)
                tasks.cancel_scope.cancel()
        (outcome,) = (await queue.batch(batch)).jobs
        assert outcome.state is JobState.SUCCEEDED and outcome.attempts == 2


async def test_a_try_running_past_its_lease_is_cancelled_and_tried_again(
        postgres_database: str) -> None:
    async with ProcrastinateJobQueue(postgres_database, max_attempts=2, retry_wait=0.05,
                                     heartbeat=0.3, polling=0.1, lease=0.3) as queue:
        batch = uuid.uuid4().hex
        await queue.enqueue([IngestJob(batch, "https://example.org/forever")])
        tries = 0

        async def stall(job: IngestJob) -> IngestResult:
            nonlocal tries
            tries += 1
            await anyio.sleep_forever()
            raise AssertionError

        with anyio.fail_after(20):
            await queue.work(stall, until_idle=True)
        (failed,) = (await queue.batch(batch)).failures
        assert tries == 2 and failed.attempts == 2
        assert failed.result is not None and failed.result.error_kind == "timeout"
        assert "lease" in (failed.result.message or "")


async def test_completing_an_attempt_twice_changes_nothing(
        queue: ProcrastinateJobQueue) -> None:
    """Completion is keyed by the job and the attempt it was fetched at: the second
    completion of the same attempt, or a late one after the job went back and was taken
    again, leaves the newer state alone."""
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/twice")])
    manager = queue._app.job_manager
    _, job = await _take_and_hang(queue)
    status = procrastinate.jobs.Status
    assert await manager.send_back(job) is True
    assert await manager.send_back(job) is False
    assert await manager.complete(job, status.SUCCEEDED) is False  # type: ignore[arg-type]
    _, again = await _take_and_hang(queue)
    assert again.attempts == 1  # type: ignore[attr-defined]
    assert await manager.complete(job, status.SUCCEEDED) is False  # the stale attempt
    assert (await queue.batch(batch)).jobs[0].state is JobState.RUNNING
    assert await manager.complete(again, status.SUCCEEDED) is True
    assert (await queue.batch(batch)).jobs[0].state is JobState.SUCCEEDED


async def test_an_unreachable_database_while_reading_a_batch_is_a_storage_error(
        queue: ProcrastinateJobQueue, postgres_server) -> None:  # type: ignore[no-untyped-def]
    import psycopg

    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/away")])
    # Every connection of the queue's pool cut by the server, as a restart does.
    database = queue.url.rsplit("/", 1)[-1]
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        cut = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE datname = %s", (database,)).fetchone()
    assert cut is not None and cut[0] >= 1
    # The pool notices the dead connections and reconnects: the batch reads again.
    for _ in range(5):
        try:
            summary = await queue.batch(batch)
            break
        except SheafError as exc:
            assert exc.kind is ErrorKind.STORAGE and "queue database" in str(exc)
    assert summary.jobs[0].state is JobState.WAITING
    await queue.work(_ok, until_idle=True)


async def test_a_job_the_database_says_a_worker_runs_but_it_does_not_is_taken_back(
        queue: ProcrastinateJobQueue) -> None:
    """A completion acknowledged and then lost in a crash leaves a job `doing` under a
    live worker that has moved on: that worker's sweep sees it does not hold the job and
    puts it back, long before any lease."""
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, "https://example.org/first")])
    first, release = anyio.Event(), anyio.Event()
    ran: list[str] = []

    async def handle(job: IngestJob) -> IngestResult:
        ran.append(job.source)
        if job.source.endswith("first"):
            first.set()
            await release.wait()
        return IngestResult(job.source, IngestStatus.NEW, document_id="d")

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: queue.work(handle, until_idle=True))
            await first.wait()
            await queue.enqueue([IngestJob(batch, "https://example.org/lost")])
            # Taken in the database under the live worker's id, never run by it.
            manager = queue._app.job_manager
            assert await manager.fetch_job(queues=[QUEUE],
                                           worker_id=queue._worker.worker_id) is not None
            release.set()
    summary = await queue.batch(batch)
    assert summary.states["succeeded"] == 2
    assert {job.source: job.attempts for job in summary.jobs}["https://example.org/lost"] == 2
    assert ran.count("https://example.org/lost") == 1


async def test_the_queue_depth_counts_jobs_by_state(queue: ProcrastinateJobQueue) -> None:
    before = await queue.depth()
    batch = uuid.uuid4().hex
    await queue.enqueue([IngestJob(batch, f"https://example.org/d{i}") for i in range(3)])
    waiting = await queue.depth()
    assert waiting["waiting"] == before["waiting"] + 3
    await queue.work(_ok, until_idle=True)
    done = await queue.depth()
    assert done["waiting"] == 0 and done["succeeded"] == before["succeeded"] + 3
