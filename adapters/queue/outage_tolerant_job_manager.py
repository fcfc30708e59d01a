"""procrastinate's job manager made to outlast a database outage, with completions keyed
by the job's attempt (ADR-0033).

procrastinate's worker calls its app's job manager for every database step. Unchanged, a
restart of PostgreSQL mid-batch killed workers (a failed fetch ends the worker's loop, a
failed heartbeat or listener stops it) and left jobs `doing` for ever (a failed "finish"
after the work committed is an exception in a task nobody awaits). Here:

- fetching, heartbeats, listening and unregistering wait out an outage instead of
  raising: the worker stays up and carries on when the server is back;
- finishing or retrying a job is tried again until the server is back, and is *keyed by
  the attempt*: it applies only while the job is still `doing` with the attempts it was
  fetched with. A job some other process already completed (a stalled-worker sweep, the
  lease, the reconciliation of recorded results) is left as it is, so completing twice
  is harmless and never overwrites a later attempt's state;
- a heartbeat re-registers a worker whose row was pruned while it could not beat (other
  workers prune rows silent for three heartbeats), so its next fetch does not break the
  jobs table's reference to it.

The completions call procrastinate's own SQL functions (`procrastinate_finish_job_v1`,
`procrastinate_retry_job_v2`, those of procrastinate 3, which the queue extra pins), inside
a statement that first locks the row in the expected state."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable
from typing import Any

import anyio
import procrastinate.manager
from procrastinate import jobs as procrastinate_jobs

from .queue_outages import is_outage, reconnect_wait, when_reachable

logger = logging.getLogger("sheaf.queue")

_FINISH = """
WITH claimed AS (
    SELECT id FROM procrastinate_jobs
    WHERE id = %(job_id)s AND status = 'doing' AND attempts = %(attempts)s FOR UPDATE)
SELECT procrastinate_finish_job_v1(id, %(status)s::procrastinate_job_status,
                                   %(delete_job)s) IS NULL AS done
FROM claimed"""
_RETRY = """
WITH claimed AS (
    SELECT id FROM procrastinate_jobs
    WHERE id = %(job_id)s AND status = 'doing' AND attempts = %(attempts)s FOR UPDATE)
SELECT procrastinate_retry_job_v2(id, %(retry_at)s::timestamptz, %(priority)s::integer,
                                  %(queue)s::varchar, %(lock)s::varchar) IS NULL AS done
FROM claimed"""
_BEAT = """
INSERT INTO procrastinate_workers (id, last_heartbeat) OVERRIDING SYSTEM VALUE
VALUES (%(worker_id)s, now())
ON CONFLICT (id) DO UPDATE SET last_heartbeat = now()"""


class OutageTolerantJobManager(procrastinate.manager.JobManager):
    """A `JobManager` whose worker-side calls wait out database outages; completions
    apply once per attempt. `patience` bounds how long a completion waits for the
    database before giving up (the job then stays `doing` until the reconciliation or
    the lease of a live worker completes it)."""

    def __init__(self, connector: Any, *, patience: float = 600.0) -> None:
        super().__init__(connector)
        self.patience = patience
        self.stopping = False
        """Set when the worker is stopping: completions then wait no longer."""
        self.held: set[int] = set()
        """The jobs this process is running or completing (the sweep leaves them)."""
        self._away = False

    # -- completions, keyed by the attempt ---------------------------------------------
    async def complete(self, job: procrastinate_jobs.Job, status: procrastinate_jobs.Status,
                       ) -> bool:
        """Finish `job` (as fetched: its id and attempts) with `status`; False when it is
        no longer `doing` at that attempt (someone else completed it)."""
        assert job.id is not None
        rows = await self.connector.execute_query_all_async(
            _FINISH, job_id=job.id, attempts=job.attempts, status=status.value,
            delete_job=False)
        return bool(rows)

    async def send_back(self, job: procrastinate_jobs.Job,
                        retry_at: datetime.datetime | None = None, *,
                        priority: int | None = None, queue: str | None = None,
                        lock: str | None = None) -> bool:
        """Put `job` back in the queue (due at `retry_at`, now when None); False when it
        is no longer `doing` at the attempt it was fetched with."""
        assert job.id is not None
        rows = await self.connector.execute_query_all_async(
            _RETRY, job_id=job.id, attempts=job.attempts,
            retry_at=retry_at or datetime.datetime.now(datetime.UTC), priority=priority,
            queue=queue, lock=lock)
        return bool(rows)

    async def finish_job(self, job: procrastinate_jobs.Job,
                         status: procrastinate_jobs.Status, delete_job: bool) -> None:
        # sheaf keeps every job's row (its result references it): delete_job is never set.
        try:
            done = await when_reachable(lambda: self.complete(job, status),
                                        doing=f"finishing job {job.id}",
                                        patience=self.patience,
                                        giving_up=lambda: self.stopping)
        finally:
            self.held.discard(int(job.id or 0))
        if not done:
            logger.info("job %s was already completed elsewhere (attempt %s)", job.id,
                        job.attempts + 1)

    async def retry_job(self, job: procrastinate_jobs.Job,
                        retry_at: datetime.datetime | None = None,
                        priority: int | None = None, queue: str | None = None,
                        lock: str | None = None) -> None:
        try:
            done = await when_reachable(
                lambda: self.send_back(job, retry_at, priority=priority, queue=queue,
                                       lock=lock),
                doing=f"putting job {job.id} back", patience=self.patience,
                giving_up=lambda: self.stopping)
        finally:
            self.held.discard(int(job.id or 0))
        if not done:
            logger.info("job %s was already completed elsewhere (attempt %s)", job.id,
                        job.attempts + 1)

    # -- the worker's loop and side tasks ----------------------------------------------
    async def fetch_job(self, queues: Iterable[str] | None, worker_id: int
                        ) -> procrastinate_jobs.Job | None:
        """The next job, or None while the database is away (the worker polls again)."""
        import psycopg

        try:
            job = await super().fetch_job(queues=queues, worker_id=worker_id)
        except procrastinate.exceptions.ConnectorException as exc:
            if isinstance(exc.__cause__, psycopg.errors.ForeignKeyViolation):
                # This worker's row was pruned while it could not beat: register it again.
                await self.update_heartbeat(worker_id)
                return None
            if not is_outage(exc):
                raise
            self._went_away("fetching jobs")
            return None
        self._came_back()
        return job

    async def update_heartbeat(self, worker_id: int) -> None:
        try:
            await self.connector.execute_query_async(_BEAT, worker_id=worker_id)
        except procrastinate.exceptions.ConnectorException as exc:
            if not is_outage(exc):
                raise
            self._went_away("sending the heartbeat")

    async def unregister_worker(self, worker_id: int) -> None:
        try:
            await super().unregister_worker(worker_id)
        except procrastinate.exceptions.ConnectorException as exc:
            if not is_outage(exc):
                raise
            # The row stays; other workers prune it once its heartbeat is old.

    async def listen_for_jobs(self, *, on_notification: Any,
                              queues: Iterable[str] | None = None) -> None:
        """Listen for new jobs, reconnecting while the database is away (the worker's
        polling finds jobs meanwhile)."""
        failures = 0
        while True:
            try:
                await super().listen_for_jobs(on_notification=on_notification,
                                              queues=queues)
                return
            except Exception as exc:
                if not is_outage(exc):
                    raise
                failures += 1
                await anyio.sleep(reconnect_wait(failures))

    def _went_away(self, doing: str) -> None:
        if not self._away:
            self._away = True
            logger.warning("the queue database is unreachable (%s); the worker waits for "
                           "it and carries on when it is back", doing)

    def _came_back(self) -> None:
        if self._away:
            self._away = False
            logger.warning("the queue database is reachable again")
