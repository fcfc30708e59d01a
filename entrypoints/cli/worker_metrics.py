"""`sheaf worker --metrics-port`: the worker's Prometheus metrics on `GET /metrics` —
jobs by outcome and their durations, and the queue's depth by state read when scraped."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from ...domain.errors import configuration_error
from ...domain.store.ingestion import IngestResult

Record = Callable[[IngestResult, float], None]


@asynccontextmanager
async def serving_worker_metrics(host: str, port: int | None, queue: Any
                                 ) -> AsyncIterator[Record]:
    """Serve the metrics on host:port while the block runs (nothing when `port` is None);
    yields what records one finished job."""
    if port is None:
        yield lambda _result, _seconds: None
        return
    from aiohttp import web

    from ..http.prometheus_metrics import (
        Labels,
        MetricsRegistry,
        metrics_handler,
        process_metrics,
    )

    registry = MetricsRegistry()
    process_metrics(registry, time.time())
    registry.counter("sheaf_jobs_total", "jobs this worker ran, by ingest outcome "
                                         "(new, unchanged, ..., failed) and error kind")
    registry.histogram("sheaf_job_seconds", "how long a job took, by outcome")

    async def depth() -> list[tuple[Labels, float]]:
        counts = await queue.depth()
        return [((("state", state),), float(n)) for state, n in counts.items()]

    registry.gauge("sheaf_queue_jobs", "jobs of the queue by state (all workers)", depth)
    app = web.Application()
    app.router.add_get("/metrics", metrics_handler(registry))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as exc:
            raise configuration_error("--metrics-port", f"cannot listen on {host}:{port}: "
                                      f"{exc.strerror or exc}") from None

        def record(result: IngestResult, seconds: float) -> None:
            labels = (("status", result.status.value), ("kind", result.error_kind or ""))
            registry.add("sheaf_jobs_total", labels)
            registry.observe("sheaf_job_seconds", seconds,
                             (("status", result.status.value),))

        yield record
    finally:
        await runner.cleanup()
