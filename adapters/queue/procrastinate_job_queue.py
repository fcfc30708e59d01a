"""The job queue on PostgreSQL through procrastinate (ADR-0023).

procrastinate keeps jobs in `procrastinate_jobs` (states, attempts, locks, scheduled
retries), hands them to workers with `SELECT ... FOR UPDATE SKIP LOCKED` and LISTEN/NOTIFY,
and records each worker's heartbeat. sheaf adds one table, `sheaf_job_results`, holding
each job's last ingest result (the queue keeps no return values), and a sweep in every
worker that completes the jobs nobody else will: those of a worker whose heartbeat
stopped, those whose result is recorded but whose completion was lost, and those running
past their lease (ADR-0033). A worker outlasts an outage of the database: it waits for it
and carries on (`OutageTolerantJobManager`)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import socket
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from ...application.ports.job_queue import JobHandler
from ...domain.errors import ErrorKind, SheafError
from ...domain.queue.ingest_jobs import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETRY_WAIT,
    BatchSummary,
    IngestJob,
    JobOutcome,
    JobState,
    is_transient,
    retry_delay,
)
from ...domain.store.ingestion import IngestResult, IngestStatus
from .job_reconciliation import (
    ORPHANED,
    PAST_LEASE,
    RECORDED_BUT_RUNNING,
    Completion,
    completion_of_recorded,
    completion_past_lease,
    retry_at,
    row_source,
)
from .queue_outages import is_outage, reconnect_wait, when_reachable

if TYPE_CHECKING:
    import procrastinate

logger = logging.getLogger("sheaf.queue")

TASK = "sheaf.ingest"
QUEUE = "sheaf-ingest"
DEFAULT_HEARTBEAT = 10.0
DEFAULT_LEASE = 1800.0
"""Half an hour: far longer than any one document takes (a 500-page scan with OCR takes
minutes), short enough that a wedged job does not hold a batch for an afternoon."""
DEFAULT_PATIENCE = 600.0
_SCHEMA_LOCK = 0x5EAF_0023  # one advisory lock id: workers starting together take turns
_STATES = {"todo": JobState.WAITING, "doing": JobState.RUNNING,
           "succeeded": JobState.SUCCEEDED, "failed": JobState.FAILED,
           "cancelled": JobState.CANCELLED, "aborting": JobState.RUNNING,
           "aborted": JobState.CANCELLED}
_RESULTS_TABLE = """
CREATE TABLE IF NOT EXISTS sheaf_job_results (
    job_id bigint PRIMARY KEY REFERENCES procrastinate_jobs (id) ON DELETE CASCADE,
    attempt integer NOT NULL,
    result jsonb NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sheaf_ingest_jobs_by_batch
    ON procrastinate_jobs ((args->>'batch')) WHERE task_name = 'sheaf.ingest';
"""


class TransientJobFailure(Exception):
    """A result worth trying again later (raised so that the queue schedules a retry)."""

    def __init__(self, result: IngestResult) -> None:
        super().__init__(f"{result.error_kind}: {result.message}")
        self.result = result


class FinalJobFailure(Exception):
    """A failed result that would fail the same way again: the job ends `failed`."""

    def __init__(self, result: IngestResult) -> None:
        super().__init__(f"{result.error_kind}: {result.message}")
        self.result = result


def _procrastinate() -> Any:
    try:
        import procrastinate
        import procrastinate.worker
    except ImportError:
        raise SheafError(ErrorKind.CONFIGURATION, "the job queue needs procrastinate: "
                         "pip install 'sheaf[queue]'") from None
    return procrastinate


def describe_url(url: str) -> str:
    """host:port/database of a PostgreSQL URL, without the password (for messages)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "the queue database (its URL cannot be parsed)"
    return f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}/" \
           f"{parts.get('dbname') or parts.get('user') or ''}"


class ProcrastinateJobQueue:
    """Ingest jobs in the PostgreSQL database at `url` (tables made on first open).

    `retry_wait` is the first backoff in seconds, doubling per attempt; `heartbeat` is
    how often a worker reports itself alive, and a worker silent for three heartbeats is
    taken for dead: its running jobs go back to the queue. `grace` is how long a stopping
    worker waits for its running jobs before putting them back. `lease` is the longest
    one try of a job may run: its worker cancels it then (a transient `timeout`, tried
    again), and any worker's sweep puts back a job still `doing` a few heartbeats later,
    however fresh its worker's heartbeat. `patience` is how long a worker waits for an
    unreachable database to record or complete a job before leaving it to the sweep."""

    def __init__(self, url: str, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 retry_wait: float = DEFAULT_RETRY_WAIT, heartbeat: float = DEFAULT_HEARTBEAT,
                 grace: float = 30.0, polling: float = 1.0, pool_size: int = 4,
                 signals: bool = False, lease: float = DEFAULT_LEASE,
                 patience: float = DEFAULT_PATIENCE) -> None:
        self._procrastinate = _procrastinate()
        from .outage_tolerant_job_manager import OutageTolerantJobManager

        self.url = url
        self.max_attempts = max_attempts
        self.retry_wait = retry_wait
        self.heartbeat = heartbeat
        self.grace = grace
        self.polling = polling
        self.signals = signals
        self.lease = lease
        self.patience = patience
        from ..store.postgres.application_names import connection_options

        self._connect_options = {"connect_timeout": 10, **connection_options(url, "queue")}
        connector = self._procrastinate.PsycopgConnector(
            conninfo=url, min_size=1, max_size=max(2, pool_size),
            kwargs=self._connect_options)
        self._app: procrastinate.App = self._procrastinate.App(connector=connector)
        # Before the task is registered: tasks keep the manager they were made with.
        self._manager = OutageTolerantJobManager(connector, patience=patience)
        self._app.job_manager = self._manager
        self._handler: JobHandler | None = None
        self._worker: Any = None
        self._idle = False
        self._app.task(name=TASK, queue=QUEUE, pass_context=True,
                       retry=self._retry_strategy())(self._run)
        self._opened = False

    @property
    def stalled_after(self) -> float:
        return 3 * self.heartbeat

    # -- opening -------------------------------------------------------------------------
    async def open(self) -> None:
        """Reach the database and make the tables when they are missing; `storage` naming
        the host when it cannot be reached."""
        if self._opened:
            return
        await self._prepare_schema()
        try:
            await self._app.open_async()
        except Exception as exc:
            raise self._unreachable(exc) from None
        self._opened = True

    async def aclose(self) -> None:
        if self._opened:
            self._opened = False
            await self._app.close_async()

    async def __aenter__(self) -> ProcrastinateJobQueue:
        await self.open()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def _unreachable(self, exc: BaseException) -> SheafError:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        return SheafError(ErrorKind.STORAGE, f"cannot reach the queue database at "
                          f"{describe_url(self.url)} ({first}); check SHEAF_QUEUE")

    async def _prepare_schema(self) -> None:
        import psycopg

        try:
            connection = await psycopg.AsyncConnection.connect(self.url,
                                                               **self._connect_options)
        except (psycopg.Error, OSError) as exc:
            raise self._unreachable(exc) from None
        schema = self._app.schema_manager.get_schema()
        async with connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            found = await (await connection.execute(
                "SELECT to_regclass('procrastinate_jobs') IS NOT NULL")).fetchone()
            if not (found and found[0]):
                await connection.execute(schema)
            await connection.execute(_RESULTS_TABLE)

    # -- enqueueing and summaries ----------------------------------------------------------
    async def enqueue(self, jobs: Sequence[IngestJob]) -> tuple[int, ...]:
        if not jobs:
            return ()
        await self.open()
        job_type = self._procrastinate.jobs.Job
        rows = [job_type(id=None, queue=QUEUE, lock=job.identity, queueing_lock=None,
                         task_name=TASK, task_kwargs=job.as_args()) for job in jobs]
        deferred = await self._app.job_manager.batch_defer_jobs_async(rows)
        return tuple(int(job.id) for job in deferred)

    async def batch(self, batch: str) -> BatchSummary:
        await self.open()
        try:
            rows = await self._app.connector.execute_query_all_async(
                "SELECT job.id, job.status, job.attempts, job.args->>'source' AS source, "
                "result.attempt, result.result FROM procrastinate_jobs job "
                "LEFT JOIN sheaf_job_results result ON result.job_id = job.id "
                "WHERE job.task_name = %(task)s AND job.args->>'batch' = %(batch)s "
                "ORDER BY job.id", task=TASK, batch=batch)
        except self._procrastinate.exceptions.ConnectorException as exc:
            raise self._failed(exc, f"reading batch {batch}") from None
        if not rows:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no batch {batch!r} in the queue")
        return BatchSummary(batch, tuple(_outcome(row) for row in rows))

    async def depth(self) -> dict[str, int]:
        """How many of the queue's jobs are in each state (waiting, running, ...)."""
        await self.open()
        try:
            rows = await self._app.connector.execute_query_all_async(
                "SELECT status, count(*) AS jobs FROM procrastinate_jobs "
                "WHERE queue_name = %(queue)s GROUP BY status", queue=QUEUE)
        except self._procrastinate.exceptions.ConnectorException as exc:
            raise self._failed(exc, "counting its jobs") from None
        counts = {state.value: 0 for state in JobState}
        for row in rows:
            state = _STATES.get(str(row["status"]), JobState.WAITING).value
            counts[state] += int(row["jobs"])
        return counts

    def _failed(self, exc: BaseException, doing: str) -> SheafError:
        cause = exc.__cause__ or exc
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0][:300]
        return SheafError(ErrorKind.STORAGE, f"the queue database at "
                          f"{describe_url(self.url)} failed while {doing} ({first})")

    async def _record(self, job_id: int, attempt: int, result: IngestResult) -> None:
        """Keep the attempt's result; while the database is away, wait for it (the work
        is done, its result is what the batch is waiting for)."""
        from psycopg.types.json import Jsonb

        async def insert() -> None:
            await self._app.connector.execute_query_async(
                "INSERT INTO sheaf_job_results (job_id, attempt, result) "
                "VALUES (%(job)s, %(attempt)s, %(result)s) ON CONFLICT (job_id) DO UPDATE "
                "SET attempt = EXCLUDED.attempt, result = EXCLUDED.result, "
                "finished_at = now()",
                job=job_id, attempt=attempt,
                result=Jsonb(result.as_dict()))

        await when_reachable(insert, doing=f"recording job {job_id}'s result",
                             patience=self.patience, giving_up=lambda: self._manager.stopping)

    # -- working ----------------------------------------------------------------------------
    async def work(self, handler: JobHandler, *, concurrency: int = 1,
                   until_idle: bool = False) -> None:
        """Run jobs until stopped; a database that goes away does not stop the worker:
        it starts again (registering anew) with growing waits until the server is
        back."""
        await self.open()
        self._handler = handler
        self._idle = False
        self._manager.stopping = False
        watchers = [asyncio.ensure_future(self._sweep())]
        if until_idle:
            watchers.append(asyncio.ensure_future(self._stop_when_idle()))
        failures = 0
        try:
            while not self._idle:
                self._worker = self._new_worker(concurrency)
                running = asyncio.ensure_future(self._worker.run())
                try:
                    await asyncio.shield(running)
                except asyncio.CancelledError:
                    self._manager.stopping = True
                    self._worker.stop()  # finish or put back the running jobs, then leave
                    with anyio.CancelScope(shield=True), \
                            contextlib.suppress(asyncio.CancelledError):
                        await running
                    raise
                except Exception as exc:
                    if not is_outage(exc):
                        raise
                    failures += 1
                    wait = reconnect_wait(failures)
                    logger.warning("the queue database at %s is unreachable (%s); the worker "
                                   "starts again in %.1f s", describe_url(self.url),
                                   _first_line(exc), wait)
                    await anyio.sleep(wait)
                else:
                    return  # stopped: idle, a signal, or the caller
        finally:
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            self._handler = None
            self._worker = None

    def _new_worker(self, concurrency: int) -> Any:
        return self._procrastinate.worker.Worker(
            app=self._app, queues=[QUEUE], name=f"sheaf@{socket.gethostname()}:{os.getpid()}",
            concurrency=concurrency, wait=True, fetch_job_polling_interval=self.polling,
            shutdown_graceful_timeout=self.grace, install_signal_handlers=self.signals,
            update_heartbeat_interval=self.heartbeat,
            stalled_worker_timeout=self.stalled_after)

    async def _stop_when_idle(self) -> None:
        while True:
            await asyncio.sleep(self.polling / 2)
            try:
                row = await self._app.connector.execute_query_one_async(
                    "SELECT count(*) AS busy FROM procrastinate_jobs "
                    "WHERE queue_name = %(queue)s AND status IN ('todo', 'doing')",
                    queue=QUEUE)
            except Exception as exc:
                if not is_outage(exc):
                    logger.warning("could not count the waiting jobs", exc_info=True)
                continue
            if not row["busy"]:
                self._idle = True
                if self._worker is not None:
                    self._worker.stop()
                return

    async def _sweep(self) -> None:
        """Every heartbeat, complete the jobs nobody else will: those of workers silent
        for `stalled_after` seconds (killed, frozen, cut off) go back to the queue, or
        end `failed` once they have used up their attempts (a source that kills its
        worker every time must not loop for ever); those whose result is recorded but
        still `doing` are completed as their result says; those past their lease go
        back (or fail on their last try)."""
        manager = self._app.job_manager
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                stalled = await manager.get_stalled_jobs(
                    queue=QUEUE, seconds_since_heartbeat=self.stalled_after)
                for job in stalled:
                    await self._requeue(job)
                await self._complete_recorded()
                await self._reclaim_orphans()
                await self._reclaim_past_lease()
            except Exception as exc:  # the database away for a moment: try at the next beat
                if not is_outage(exc):
                    logger.warning("could not sweep the queue for stuck jobs", exc_info=True)

    async def _complete_recorded(self) -> None:
        rows = await self._app.connector.execute_query_all_async(
            RECORDED_BUT_RUNNING, queue=QUEUE, settle=self.stalled_after)
        for row in rows:
            job = self._procrastinate.jobs.Job.from_row(row)
            completion = completion_of_recorded(row["result"], job.attempts,
                                                max_attempts=self.max_attempts,
                                                retry_wait=self.retry_wait)
            if await self._apply(job, completion):
                logger.warning("job %s (%s): its result was recorded but its completion "
                               "was lost; completed now", job.id, row_source(row))

    async def _reclaim_orphans(self) -> None:
        worker = self._worker
        if worker is None or worker.worker_id is None:
            return
        rows = await self._app.connector.execute_query_all_async(
            ORPHANED, queue=QUEUE, worker=worker.worker_id,
            held=sorted(self._manager.held), settle=self.stalled_after)
        for row in rows:
            job = self._procrastinate.jobs.Job.from_row(row)
            logger.warning("job %s (%s) is running here by the database's account but "
                           "not in this worker (a completion lost in a crash); taken back",
                           job.id, row_source(row))
            await self._requeue(job, quiet=True)

    async def _reclaim_past_lease(self) -> None:
        rows = await self._app.connector.execute_query_all_async(
            PAST_LEASE, queue=QUEUE, lease=self.lease + 2 * self.stalled_after)
        for row in rows:
            job = self._procrastinate.jobs.Job.from_row(row)
            completion = completion_past_lease(row_source(row), job.attempts,
                                               lease=self.lease,
                                               max_attempts=self.max_attempts)
            if await self._apply(job, completion):
                logger.warning("job %s (%s) ran past its lease of %g s; taken back",
                               job.id, row_source(row), self.lease)

    async def _apply(self, job: Any, completion: Completion) -> bool:
        """Complete `job` as `completion` says, once: False when another process already
        completed this attempt."""
        if completion.record is not None:
            await self._record(int(job.id), job.attempts + 1, completion.record)
        if completion.finish is None:
            return await self._manager.send_back(job, retry_at(completion.retry_in))
        status = self._procrastinate.jobs.Status(completion.finish)
        return await self._manager.complete(job, status)

    async def _requeue(self, job: Any, *, quiet: bool = False) -> None:
        source = str(job.task_kwargs.get("source", ""))
        if job.attempts + 1 >= self.max_attempts:
            done = await self._apply(job, Completion("failed", record=IngestResult(
                source, IngestStatus.FAILED, error_kind=ErrorKind.INTERNAL.value,
                message=f"its worker stopped answering on each of {job.attempts + 1} "
                        "tries (killed, or out of memory?)")))
        else:
            done = await self._apply(job, Completion(None))
        if done and not quiet:  # else another worker put it back first
            logger.warning("job %s (%s) of a stalled worker went back to the queue",
                           job.id, source)

    async def _run(self, context: Any, **args: Any) -> None:
        job_id, attempt = int(context.job.id), int(context.job.attempts) + 1
        self._manager.held.add(job_id)  # until its completion returns
        handler = self._handler
        try:
            job = IngestJob.from_args(args)
        except SheafError as exc:
            result = IngestResult(str(args.get("source", "")), IngestStatus.FAILED,
                                  error_kind=exc.kind.value, message=exc.message)
        else:
            if handler is None:
                raise RuntimeError("a job ran outside ProcrastinateJobQueue.work")
            try:
                result = None
                with anyio.move_on_after(self.lease):
                    result = await handler(job)
                if result is None:  # cancelled at the lease: tried again, as a timeout
                    result = IngestResult(job.source, IngestStatus.FAILED,
                                          error_kind=ErrorKind.TIMEOUT.value,
                                          message=f"still running after its lease of "
                                                  f"{self.lease:g} s")
            except SheafError as exc:  # the handler itself failed (the store down, say)
                result = IngestResult(job.source, IngestStatus.FAILED,
                                      error_kind=exc.kind.value, message=str(exc))
            except Exception as exc:  # a defect: this job fails, the worker goes on
                logger.exception("job %s (%s) failed unexpectedly", job_id, job.source)
                result = IngestResult(job.source, IngestStatus.FAILED,
                                      error_kind=ErrorKind.INTERNAL.value,
                                      message=f"{type(exc).__name__}: {exc}"[:300])
        await self._record(job_id, attempt, result)
        if result.status is IngestStatus.FAILED:
            if is_transient(result.error_kind):
                raise TransientJobFailure(result)
            raise FinalJobFailure(result)

    def _retry_strategy(self) -> Any:
        base = self._procrastinate.BaseRetryStrategy
        decision = self._procrastinate.RetryDecision
        queue = self

        class _Backoff(base):  # type: ignore[misc, valid-type]
            """Transient failures: doubling waits up to the attempt limit. A job stopped
            because its worker is shutting down: back in the queue at once."""

            def get_retry_decision(self, *, exception: BaseException, job: Any) -> Any:
                if isinstance(exception, asyncio.CancelledError | queue._procrastinate
                              .exceptions.JobAborted):
                    return decision(retry_in={"seconds": 0})
                # The queue's own database failing while the result was recorded is as
                # transient as a timeout.
                transient = (TransientJobFailure,
                             queue._procrastinate.exceptions.ConnectorException)
                if isinstance(exception, transient) and job.attempts + 1 < queue.max_attempts:
                    wait = retry_delay(job.attempts, base=queue.retry_wait)
                    return decision(retry_at=_now() + datetime.timedelta(seconds=wait))
                return None

        return _Backoff()


def _first_line(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    return (str(cause).strip().splitlines() or [type(cause).__name__])[0][:200]


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _outcome(row: Mapping[str, Any]) -> JobOutcome:
    stored = row.get("result")
    result = None
    if isinstance(stored, Mapping):
        try:
            result = IngestResult(**{**stored, "status": IngestStatus(stored["status"])})
        except (TypeError, ValueError, KeyError):
            result = None  # written by another sheaf version: the state still counts
    attempts = int(row["attempt"]) if row.get("attempt") is not None \
        else int(row["attempts"])
    return JobOutcome(int(row["id"]), str(row["source"] or ""),
                      _STATES.get(str(row["status"]), JobState.WAITING), attempts, result)
