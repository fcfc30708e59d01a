"""The job queue on PostgreSQL through procrastinate (ADR-0023).

procrastinate keeps jobs in `procrastinate_jobs` (states, attempts, locks, scheduled
retries), hands them to workers with `SELECT ... FOR UPDATE SKIP LOCKED` and LISTEN/NOTIFY,
and records each worker's heartbeat. sheaf adds one table, `sheaf_job_results`, holding
each job's last ingest result (the queue keeps no return values), and a loop in every
worker that puts the jobs of a worker whose heartbeat stopped back in the queue."""

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

if TYPE_CHECKING:
    import procrastinate

logger = logging.getLogger("sheaf.queue")

TASK = "sheaf.ingest"
QUEUE = "sheaf-ingest"
DEFAULT_HEARTBEAT = 10.0
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
    worker waits for its running jobs before putting them back."""

    def __init__(self, url: str, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 retry_wait: float = DEFAULT_RETRY_WAIT, heartbeat: float = DEFAULT_HEARTBEAT,
                 grace: float = 30.0, polling: float = 1.0, pool_size: int = 4,
                 signals: bool = False) -> None:
        self._procrastinate = _procrastinate()
        self.url = url
        self.max_attempts = max_attempts
        self.retry_wait = retry_wait
        self.heartbeat = heartbeat
        self.grace = grace
        self.polling = polling
        self.signals = signals
        connector = self._procrastinate.PsycopgConnector(
            conninfo=url, min_size=1, max_size=max(2, pool_size),
            kwargs={"connect_timeout": 10})
        self._app: procrastinate.App = self._procrastinate.App(connector=connector)
        self._handler: JobHandler | None = None
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
            connection = await psycopg.AsyncConnection.connect(self.url, connect_timeout=10)
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
        rows = await self._app.connector.execute_query_all_async(
            "SELECT job.id, job.status, job.attempts, job.args->>'source' AS source, "
            "result.attempt, result.result FROM procrastinate_jobs job "
            "LEFT JOIN sheaf_job_results result ON result.job_id = job.id "
            "WHERE job.task_name = %(task)s AND job.args->>'batch' = %(batch)s "
            "ORDER BY job.id", task=TASK, batch=batch)
        if not rows:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no batch {batch!r} in the queue")
        return BatchSummary(batch, tuple(_outcome(row) for row in rows))

    async def _record(self, job_id: int, attempt: int, result: IngestResult) -> None:
        from psycopg.types.json import Jsonb

        await self._app.connector.execute_query_async(
            "INSERT INTO sheaf_job_results (job_id, attempt, result) "
            "VALUES (%(job)s, %(attempt)s, %(result)s) ON CONFLICT (job_id) DO UPDATE "
            "SET attempt = EXCLUDED.attempt, result = EXCLUDED.result, "
            "finished_at = now()",
            job=job_id, attempt=attempt,
            result=Jsonb(result.as_dict()))

    # -- working ----------------------------------------------------------------------------
    async def work(self, handler: JobHandler, *, concurrency: int = 1,
                   until_idle: bool = False) -> None:
        await self.open()
        self._handler = handler
        worker = self._procrastinate.worker.Worker(
            app=self._app, queues=[QUEUE], name=f"sheaf@{socket.gethostname()}:{os.getpid()}",
            concurrency=concurrency, wait=True, fetch_job_polling_interval=self.polling,
            shutdown_graceful_timeout=self.grace, install_signal_handlers=self.signals,
            update_heartbeat_interval=self.heartbeat,
            stalled_worker_timeout=self.stalled_after)
        running = asyncio.ensure_future(worker.run())
        watchers = [asyncio.ensure_future(self._requeue_stalled())]
        if until_idle:
            watchers.append(asyncio.ensure_future(self._stop_when_idle(worker)))
        try:
            await asyncio.shield(running)
        except asyncio.CancelledError:
            worker.stop()  # finish or put back the running jobs, then leave
            with anyio.CancelScope(shield=True), contextlib.suppress(asyncio.CancelledError):
                await running
            raise
        finally:
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            self._handler = None

    async def _stop_when_idle(self, worker: Any) -> None:
        while True:
            await asyncio.sleep(self.polling / 2)
            row = await self._app.connector.execute_query_one_async(
                "SELECT count(*) AS busy FROM procrastinate_jobs "
                "WHERE queue_name = %(queue)s AND status IN ('todo', 'doing')", queue=QUEUE)
            if not row["busy"]:
                worker.stop()
                return

    async def _requeue_stalled(self) -> None:
        """Every heartbeat: the jobs of workers silent for `stalled_after` seconds (killed,
        frozen, cut off) go back to the queue, or end `failed` once they have used up their
        attempts (a source that kills its worker every time must not loop forever)."""
        manager = self._app.job_manager
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                stalled = await manager.get_stalled_jobs(
                    queue=QUEUE, seconds_since_heartbeat=self.stalled_after)
                for job in stalled:
                    await self._requeue(job)
            except Exception:  # the database away for a moment: try at the next beat
                logger.warning("could not look for stalled jobs", exc_info=True)

    async def _requeue(self, job: Any) -> None:
        source = str(job.task_kwargs.get("source", ""))
        try:
            if job.attempts + 1 >= self.max_attempts:
                await self._record(job.id, job.attempts + 1, IngestResult(
                    source, IngestStatus.FAILED, error_kind=ErrorKind.INTERNAL.value,
                    message=f"its worker stopped answering on each of {job.attempts + 1} "
                            "tries (killed, or out of memory?)"))
                await self._app.job_manager.finish_job(
                    job, self._procrastinate.jobs.Status.FAILED, delete_job=False)
            else:
                await self._app.job_manager.retry_job(job)
            logger.warning("job %s (%s) of a stalled worker went back to the queue",
                           job.id, source)
        except self._procrastinate.exceptions.ConnectorException:
            pass  # another worker put it back first

    async def _run(self, context: Any, **args: Any) -> None:
        job_id, attempt = int(context.job.id), int(context.job.attempts) + 1
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
                result = await handler(job)
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
