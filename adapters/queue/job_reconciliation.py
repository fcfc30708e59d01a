"""The jobs a live worker's sweep completes although no worker is finishing them
(ADR-0033): those whose result is recorded but whose completion never reached the
database, and those `doing` for longer than the lease allows, whoever holds them.

Both are found by SQL over procrastinate's tables and sheaf's results table; what to do
with each is decided here from its recorded result, the same decision the worker would
have made, so it does not matter which of them completes a job first (completions are
keyed by the attempt: the second one changes nothing)."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import attrs

from ...domain.errors import ErrorKind
from ...domain.queue.ingest_jobs import is_transient, retry_delay
from ...domain.store.ingestion import IngestResult, IngestStatus

_COLUMNS = ("job.id, job.status, job.task_name, job.priority, job.lock, "
            "job.queueing_lock, job.args, job.scheduled_at, job.queue_name, "
            "job.attempts, job.worker_id")

RECORDED_BUT_RUNNING = f"""
SELECT {_COLUMNS}, result.result
FROM procrastinate_jobs job JOIN sheaf_job_results result ON result.job_id = job.id
WHERE job.status = 'doing' AND job.queue_name = %(queue)s
  AND result.attempt = job.attempts + 1
  AND result.finished_at < now() - make_interval(secs => %(settle)s)
ORDER BY job.id LIMIT 500"""
"""Jobs whose current attempt recorded its result `settle` seconds ago or more, still
`doing`: the work ended, its completion was lost (the database went away between the
two, or the worker gave up waiting for it)."""

PAST_LEASE = f"""
SELECT {_COLUMNS}
FROM procrastinate_jobs job
WHERE job.status = 'doing' AND job.queue_name = %(queue)s
  AND (SELECT max(event.at) FROM procrastinate_events event
       WHERE event.job_id = job.id AND event.type = 'started')
      < now() - make_interval(secs => %(lease)s)
ORDER BY job.id LIMIT 500"""
"""Jobs started more than `lease` seconds ago and still `doing`, whatever their worker's
heartbeat says: a worker that beats but cannot finish (its event loop wedged in a
library, its completion given up) must not hold a job for ever."""


ORPHANED = f"""
SELECT {_COLUMNS}
FROM procrastinate_jobs job
LEFT JOIN sheaf_job_results result
       ON result.job_id = job.id AND result.attempt = job.attempts + 1
WHERE job.status = 'doing' AND job.queue_name = %(queue)s AND job.worker_id = %(worker)s
  AND NOT (job.id = ANY(%(held)s)) AND result.job_id IS NULL
  AND (SELECT max(event.at) FROM procrastinate_events event
       WHERE event.job_id = job.id AND event.type = 'started')
      < now() - make_interval(secs => %(settle)s)
ORDER BY job.id LIMIT 500"""
"""Jobs the database says this worker runs, started `settle` seconds ago or more, that
the worker does not hold and whose attempt recorded nothing: a completion the server
acknowledged and then lost in a crash (`synchronous_commit = off`, an asynchronous
replica promoted), so the worker has moved on while the row still says `doing`."""


@attrs.frozen
class Completion:
    """What to do with a job nobody is completing: finish it `succeeded` or `failed`, or
    put it back in the queue after `retry_in` seconds."""

    finish: str | None
    """"succeeded" or "failed"; None to put it back."""
    retry_in: float = 0.0
    record: IngestResult | None = None
    """A result to record first (a job given up without one)."""


def completion_of_recorded(stored: object, attempts: int, *, max_attempts: int,
                           retry_wait: float) -> Completion:
    """The completion a worker would have made of a job whose attempt `attempts + 1`
    recorded `stored` (the results table's JSON)."""
    status = stored.get("status") if isinstance(stored, Mapping) else None
    if status != IngestStatus.FAILED.value:
        return Completion("succeeded")
    kind = stored.get("error_kind") if isinstance(stored, Mapping) else None
    if is_transient(kind) and attempts + 1 < max_attempts:
        return Completion(None, retry_delay(attempts, base=retry_wait))
    return Completion("failed")


def completion_past_lease(source: str, attempts: int, *, lease: float,
                          max_attempts: int) -> Completion:
    """A job that ran past its lease: back in the queue, or `failed` on its last try (a
    source that wedges every worker must not loop for ever)."""
    if attempts + 1 < max_attempts:
        return Completion(None)
    return Completion("failed", record=IngestResult(
        source, IngestStatus.FAILED, error_kind=ErrorKind.TIMEOUT.value,
        message=f"still running after its lease of {lease:g} s on each of "
                f"{attempts + 1} tries"))


def retry_at(seconds: float) -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds)


def row_source(row: Mapping[str, Any]) -> str:
    args = row.get("args")
    return str(args.get("source", "")) if isinstance(args, Mapping) else ""
