"""`sheaf ingest --queue`, `sheaf worker` and `sheaf batch`: ingestion through the
durable queue (ADR-0023)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio
import click

from ...domain.errors import ErrorKind, SheafError
from ...domain.queue.ingest_jobs import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETRY_WAIT,
    BatchSummary,
    IngestJob,
    JobState,
)
from ...domain.store.ingestion import IngestResult, IngestStatus
from ..api.settings import ALL_GROUPS, Group, Settings
from .cli_options import (
    json_option,
    network_options,
    settings_for,
    store_option,
)
from .cli_session import echo_json
from .failure_text import failure_text

if TYPE_CHECKING:
    from ...application.ports.job_queue import JobQueue
    from ..api.ingest_queue import IngestQueue

_WAIT_POLL = 1.0
_OUTAGE_WAITS = (1.0, 2.0, 4.0, 8.0, 10.0)


def register(group: click.Group) -> None:
    group.add_command(worker)
    group.add_command(batch)


def queue_url_option(function: Any) -> Any:
    return click.option("--queue-url", metavar="URL",
                        help="the queue's PostgreSQL database (or SHEAF_QUEUE; default: "
                             "the store's, when it is postgresql://)")(function)


def _quiet_queue_logs() -> None:
    # procrastinate logs every failed job with its traceback; sheaf prints one line per
    # job itself and keeps the library's lines for LOG_LEVEL=debug.
    if logging.getLogger().level > logging.DEBUG:
        logging.getLogger("procrastinate").setLevel(logging.CRITICAL)
        # While the database is away the pools log every failed reconnection; the queue
        # says once that it is waiting, and again when it is back.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)


# -- enqueueing (`sheaf ingest --queue`) ---------------------------------------------------
def enqueue(settings: Settings, sources: Sequence[str], *, recursive: bool,
            template: IngestJob, as_json: bool, wait: bool) -> None:
    """Put one job per source (directories expanded here) in the queue; print the batch
    id on stdout; with `wait`, follow the batch to its end and print its summary."""

    async def run() -> int:
        from ..api.knowledge import Knowledge

        async with Knowledge.open_queue(settings=settings) as queue:
            listing = await queue.listing(sources, recursive=recursive)
            if not listing.files:  # no empty batch: say why nothing went in, and fail
                if as_json:
                    echo_json({"batch": None, "enqueued": 0, "refused": [],
                               "skipped": [s.as_dict() for s in listing.skipped]})
                for skipped in listing.skipped:
                    click.echo(f"  skipped {skipped.path}: {skipped.reason}", err=True)
                click.echo(f"nothing to enqueue: {len(listing.skipped)} skipped, no file "
                           "sheaf reads", err=True)
                return 1
            enqueued = await queue.enqueue(listing, template)
            if as_json:
                echo_json(enqueued.as_dict())
            else:
                click.echo(enqueued.batch)
                click.echo(f"batch {enqueued.batch}: {len(enqueued.job_ids)} jobs "
                           f"enqueued, {len(enqueued.refused)} refused, "
                           f"{len(enqueued.skipped)} skipped", err=True)
                for refused in enqueued.refused:
                    click.echo(f"  refused {refused.source}: "
                               f"{failure_text(refused.error_kind, refused.message)}",
                               err=True)
                for skipped in enqueued.skipped:
                    click.echo(f"  skipped {skipped.path}: {skipped.reason}", err=True)
            code = 1 if enqueued.refused else 0
            if wait and enqueued.job_ids:
                summary = await _follow(queue, enqueued.batch, as_json)
                code = max(code, _print_summary(summary, as_json, with_jobs=False))
            return code

    code = anyio.run(run)
    if code:
        raise click.exceptions.Exit(code)


async def _follow(queue: JobQueue | IngestQueue, batch_id: str, as_json: bool
                  ) -> BatchSummary:
    """Poll the batch until every job has finished, a progress line on stderr when the
    counts move. A queue database that goes away (a restart, a failover) is waited for:
    the jobs are still there when it is back."""
    last = None
    outages = 0
    while True:
        try:
            summary = await queue.batch(batch_id)
        except SheafError as exc:
            if exc.kind is not ErrorKind.STORAGE:
                raise
            if not outages:
                click.echo(f"batch {batch_id}: {exc.message}; waiting for the queue "
                           "database", err=True)
            await anyio.sleep(_OUTAGE_WAITS[min(outages, len(_OUTAGE_WAITS) - 1)])
            outages += 1
            continue
        outages = 0
        counts = _state_line(summary)
        if counts != last and not as_json:
            click.echo(f"batch {batch_id}: {counts}", err=True)
            last = counts
        if summary.finished:
            return summary
        await anyio.sleep(_WAIT_POLL)


def _state_line(summary: BatchSummary) -> str:
    states = summary.states
    return ", ".join(f"{states.get(s.value, 0)} {s.value}" for s in JobState)


def _print_summary(summary: BatchSummary, as_json: bool, *, with_jobs: bool) -> int:
    if as_json:
        echo_json(summary.as_dict(with_jobs=with_jobs))
    else:
        outcomes = summary.outcomes
        state = "finished" if summary.finished else "in progress"
        click.echo(f"batch {summary.batch}: {len(summary.jobs)} jobs, {state}: "
                   f"{_state_line(summary)}")
        click.echo("outcomes: " + ", ".join(f"{outcomes.get(s.value, 0)} {s.value}"
                                            for s in IngestStatus))
        for job in summary.jobs if with_jobs else ():
            status = job.result.status.value if job.result else "-"
            click.echo(f"  {job.state.value:<9} {status:<9} {job.source} "
                       f"(job {job.job_id}, {job.attempts} tries)")
        for failed in summary.failures:
            why = (failure_text(failed.result.error_kind, failed.result.message)
                   if failed.result else "no result recorded")
            click.echo(f"  failed {failed.source}: {why} (after {failed.attempts} tries)")
    return 1 if summary.failures else 0


# -- `sheaf batch` ---------------------------------------------------------------------------
@click.command()
@click.argument("batch_id", metavar="BATCH")
@click.option("--wait", is_flag=True, help="follow the batch until every job has finished")
@click.option("--jobs", "with_jobs", is_flag=True, help="list every job, not only failures")
@queue_url_option
@json_option
@store_option
def batch(batch_id: str, wait: bool, with_jobs: bool, queue_url: str | None,
          as_json: bool, store: Any) -> None:
    """A batch's progress and summary, read from the queue: jobs by state, ingest
    outcomes, and each failure with its error kind. Exit 1 when a job failed."""
    settings = settings_for({Group.STORE, Group.QUEUE}, queue=queue_url, store=store)
    _quiet_queue_logs()

    async def run() -> int:
        from ..api.queue_composition import build_job_queue

        async with build_job_queue(settings) as queue:
            summary = await (_follow(queue, batch_id, as_json) if wait
                             else queue.batch(batch_id))
            return _print_summary(summary, as_json, with_jobs=with_jobs)

    code = anyio.run(run)
    if code:
        raise click.exceptions.Exit(code)


# -- `sheaf worker` --------------------------------------------------------------------------
@click.command()
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="jobs this worker runs at once")
@click.option("--until-idle", is_flag=True, help="stop once no job is waiting or running "
                                                 "(batch runs, benchmarks)")
@click.option("--max-attempts", type=click.IntRange(min=1), default=DEFAULT_MAX_ATTEMPTS,
              show_default=True, help="tries of a job failing transiently (timeouts, 5xx, "
                                      "the store unreachable)")
@click.option("--retry-wait", type=click.FloatRange(min=0, min_open=True),
              default=DEFAULT_RETRY_WAIT, show_default=True, metavar="SECONDS",
              help="the first backoff; it doubles with each try")
@click.option("--heartbeat", type=click.FloatRange(min=0.1), default=10.0,
              show_default=True, metavar="SECONDS",
              help="how often the worker reports itself alive; a worker silent for 3 "
                   "heartbeats is taken for dead and its jobs go back to the queue")
@click.option("--grace", type=click.FloatRange(min=0), default=30.0, show_default=True,
              metavar="SECONDS", help="on SIGTERM or ^C, how long running jobs may finish "
                                      "before they are put back in the queue")
@click.option("--lease", type=click.FloatRange(min=1), default=1800.0, show_default=True,
              metavar="SECONDS", help="the longest one try of a job may run: it is "
                                      "cancelled then and tried again, and any worker takes "
                                      "back a job running longer, whoever holds it")
@click.option("--metrics-port", type=click.IntRange(0, 65535), metavar="PORT",
              help="serve Prometheus metrics on GET /metrics at this port")
@click.option("--metrics-host", default="127.0.0.1", show_default=True,
              help="the address the metrics listen on")
@click.option("--embedder", help="hashing (default), local, openai:MODEL, ... "
                                 "(or SHEAF_EMBEDDER)")
@store_option
@queue_url_option
@network_options
def worker(concurrency: int, until_idle: bool, max_attempts: int, retry_wait: float,
           heartbeat: float, grace: float, lease: float, metrics_port: int | None,
           metrics_host: str, embedder: str | None, store: str | None,
           queue_url: str | None, allow_private: bool, max_bytes: int | None,
           timeout: float | None) -> None:
    """Run queued ingest jobs until stopped (SIGTERM or ^C: running jobs finish, or go
    back to the queue after --grace seconds; a second signal stops at once)."""
    settings = settings_for(ALL_GROUPS, store=store, embedder=embedder, queue=queue_url,
                            allow_private=allow_private or None, max_bytes=max_bytes,
                            timeout=timeout)
    _quiet_queue_logs()

    async def run() -> None:
        from ..api.knowledge import Knowledge
        from ..api.queue_composition import build_job_queue

        queue = build_job_queue(settings, max_attempts=max_attempts, retry_wait=retry_wait,
                                heartbeat=heartbeat, grace=grace, lease=lease,
                                pool_size=concurrency + 3, signals=True)
        from ..holder.store_holder import holding

        # On a DuckDB file the worker holds the store: other commands run through it.
        from .worker_metrics import serving_worker_metrics

        async with queue, Knowledge.open(settings=settings) as kb, \
                holding(kb, settings, "sheaf worker"), \
                serving_worker_metrics(metrics_host, metrics_port, queue) as measured:
            click.echo(f"worker: {concurrency} at a time, queue at "
                       f"{_where(queue)}", err=True)

            async def handle(job: IngestJob) -> IngestResult:
                began = time.perf_counter()
                result = await kb.ingest_job(job)
                took = time.perf_counter() - began
                measured(result, took)
                note = f"  ({failure_text(result.error_kind, result.message)})" \
                    if result.error_kind else ""
                click.echo(f"{result.status.value:<9} {job.source} [{took:.2f} s]{note}",
                           err=True)
                return result

            await queue.work(handle, concurrency=concurrency, until_idle=until_idle)
        click.echo("worker: stopped", err=True)

    anyio.run(run)


def _where(queue: Any) -> str:
    from ...adapters.queue.procrastinate_job_queue import describe_url

    return describe_url(queue.url)
