"""`GET /metrics` in Prometheus's text format, scraped as Prometheus would: `sheaf serve`
counts requests by route pattern and status and times them; `sheaf worker
--metrics-port` counts jobs by outcome and reads the queue's depth at each scrape."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from sheaf import Knowledge, Settings
from sheaf.domain.store.ingestion import IngestResult, IngestStatus
from sheaf.entrypoints.cli.worker_metrics import serving_worker_metrics
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from sheaf.entrypoints.http.prometheus_metrics import CONTENT_TYPE
from sheaf.entrypoints.http.token_scopes import parse_token_scopes

pytestmark = pytest.mark.anyio
# One sample line of the exposition format: name, optional labels, a number.
SAMPLE = re.compile(r'^[a-z_:][a-z0-9_:]*(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? '
                    r'(-?[0-9.e+-]+|\+Inf|NaN)$')


def _parsed(text: str) -> dict[str, float]:
    samples = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-z_]+ ", line), line
            continue
        assert SAMPLE.match(line), line
        name, value = line.rsplit(" ", 1)
        samples[name] = float(value)
    return samples


async def test_serve_counts_requests_by_route_and_status(tmp_path: Path) -> None:
    async with Knowledge.open(settings=Settings(tmp_path / "kb.duckdb")) as kb:
        app = build_app(kb, ApiSettings(token="admin", uploads=tmp_path / "up",
                                        scopes=parse_token_scopes("papers:read:reader")))
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        admin = {"Authorization": "Bearer admin"}
        try:
            async with aiohttp.ClientSession() as session:
                for _ in range(3):
                    async with session.get(f"{base}/v1/documents", headers=admin) as r:
                        assert r.status == 200
                async with session.get(f"{base}/v1/documents/doc_nothing",
                                       headers=admin) as r:
                    assert r.status == 404
                async with session.get(f"{base}/metrics") as r:
                    assert r.status == 401  # the API's token guards it too
                # Any valid token reads it: the counts belong to no space.
                async with session.get(f"{base}/metrics",
                                       headers={"Authorization": "Bearer reader"}) as r:
                    assert r.status == 200 and r.headers["Content-Type"] == CONTENT_TYPE
                    samples = _parsed(await r.text())
        finally:
            await runner.cleanup()
    assert samples['sheaf_http_requests_total{method="GET",route="/v1/documents",'
                   'status="200"}'] == 3
    # By the route's pattern, never the raw path (an id would make a series each).
    assert samples['sheaf_http_requests_total{method="GET",route="/v1/documents/{id}",'
                   'status="404"}'] == 1
    assert samples['sheaf_http_requests_total{method="GET",route="/metrics",'
                   'status="401"}'] == 1
    assert samples['sheaf_http_request_seconds_count{route="/v1/documents"}'] == 3
    assert samples['sheaf_http_request_seconds_bucket{route="/v1/documents",le="+Inf"}'] == 3
    assert samples["sheaf_process_uptime_seconds"] >= 0


class _Queue:
    def __init__(self) -> None:
        self.away = False

    async def depth(self) -> dict[str, int]:
        if self.away:
            raise OSError("the database is away")
        return {"waiting": 4, "running": 2, "succeeded": 9}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_worker_counts_jobs_and_reads_the_queue_depth() -> None:
    queue = _Queue()
    port = _free_port()
    async with serving_worker_metrics("127.0.0.1", port, queue) as record, \
            aiohttp.ClientSession() as session:
        record(IngestResult("a", IngestStatus.NEW, document_id="d"), 0.3)
        record(IngestResult("b", IngestStatus.NEW, document_id="e"), 0.02)
        record(IngestResult("c", IngestStatus.FAILED, error_kind="not_found"), 1.5)
        async with session.get(f"http://127.0.0.1:{port}/metrics") as r:
            samples = _parsed(await r.text())
        queue.away = True
        async with session.get(f"http://127.0.0.1:{port}/metrics") as r:
            assert r.status == 200  # the depth is left out of a scrape, not an error
            without = _parsed(await r.text())
    assert samples['sheaf_jobs_total{status="new",kind=""}'] == 2
    assert samples['sheaf_jobs_total{status="failed",kind="not_found"}'] == 1
    assert samples['sheaf_job_seconds_bucket{status="new",le="0.025"}'] == 1
    assert samples['sheaf_job_seconds_sum{status="new"}'] == pytest.approx(0.32)
    assert samples['sheaf_queue_jobs{state="waiting"}'] == 4
    assert not any(name.startswith("sheaf_queue_jobs") for name in without)
    assert without['sheaf_jobs_total{status="new",kind=""}'] == 2
