"""A batch finishes through a PostgreSQL crash: two `sheaf worker` processes ingest pages
served on 127.0.0.1 into a PostgreSQL store (the queue in the same database) while `sheaf
batch --wait` follows; the server is killed (`kill -9` of the postmaster: every
connection drops, nothing shuts down cleanly) mid-batch and started again on the same
data a few seconds later. Both workers stay up (no `internal` failure), the batch
finishes with every page stored once and `--wait` returns (ADR-0033)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import anyio
import pytest
from aiohttp import web

from tests.entrypoints.cli_runner import SHEAF
from tests.local_server import LocalServer
from tests.postgres_server import PostgresServer, PostgresUnavailable, postgres_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.integration]
pytest.importorskip("procrastinate", reason="procrastinate (the queue extra) is absent")
PAGES = 80
OUTAGE_SECONDS = 6.0


def _page(index: int) -> str:
    return (f"<html><head><title>Survey {index}</title></head><body><article>"
            f"<h1>Survey {index}</h1><p>Station {index} logged {index * 7 % 31} herons "
            f"and {index * 3 % 17} otters along the weir in season {index % 5}.</p>"
            f"<p>The keeper of station {index} repeated the count at dusk.</p>"
            "</article></body></html>")


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([SHEAF, "worker", "--concurrency", "3", "--heartbeat", "0.5",
                             "--retry-wait", "0.5", "--grace", "5"], env=env,
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def _stored(logs: list[Path]) -> int:
    return sum(log.read_bytes().count(b"\nnew ") + log.read_bytes().startswith(b"new ")
               for log in logs if log.exists())


async def test_a_batch_finishes_through_a_postgres_crash(
        local_server: LocalServer, tmp_path: Path) -> None:
    async def page(request: web.Request) -> web.StreamResponse:
        await anyio.sleep(0.05)  # the batch lasts long enough to span the crash
        index = int(request.match_info.get("index", request.path.rsplit("/", 1)[-1]))
        return web.Response(text=_page(index), content_type="text/html")

    for index in range(PAGES):
        local_server.route(f"/survey/{index}", page)
    try:
        # PostgreSQL's default durability (the other tests' servers skip it): a commit
        # acknowledged before the crash is there after it.
        with postgres_cluster({"synchronous_commit": "on"}) as cluster:
            server = PostgresServer("127.0.0.1", cluster.port, cluster.bin_dir, 0.0)
            database = server.url(server.create_database("sheaf_outage"))
            await _run_through_crash(local_server, tmp_path, database, cluster)
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL could not start on 127.0.0.1: {exc}")


async def _run_through_crash(local_server: LocalServer, tmp_path: Path, database: str,
                             cluster) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "SHEAF_ALLOW_PRIVATE_NETWORK": "1", "SHEAF_EMBEDDER": "hashing",
           "LOG_LEVEL": "warning", "SHEAF_QUEUE": "", "SHEAF_BLOBS": "",
           "SHEAF_STORE": database}
    urls = [local_server.url(f"/survey/{index}") for index in range(PAGES)]
    enqueued = subprocess.run([SHEAF, "ingest", "--queue", "--json", *urls], env=env,
                              capture_output=True, check=False)
    assert enqueued.returncode == 0, enqueued.stderr.decode()
    batch = json.loads(enqueued.stdout)["batch"]

    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    workers = [_worker(env, log) for log in logs]
    follow_log = tmp_path / "wait.log"
    follower = subprocess.Popen([SHEAF, "batch", batch, "--wait", "--json"], env=env,
                                stdout=subprocess.PIPE, stderr=follow_log.open("wb"))
    try:
        with anyio.fail_after(120):
            while _stored(logs) < PAGES // 4:
                assert all(w.poll() is None for w in workers), logs[0].read_text()
                await anyio.sleep(0.05)
        cluster.kill()  # mid-batch: jobs are fetching, storing, recording, finishing
        stored_before_crash = _stored(logs)
        await anyio.sleep(OUTAGE_SECONDS)
        cluster.start()
        with anyio.fail_after(180):
            while follower.poll() is None:
                await anyio.sleep(0.2)
        out = follower.stdout.read() if follower.stdout else b""
        assert follower.returncode == 0, follow_log.read_text() + out.decode()
        summary = json.loads(out)
        assert all(w.poll() is None for w in workers), [log.read_text() for log in logs]
    finally:
        for process in (*workers, follower):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)
    text = "".join(log.read_text() for log in logs)
    assert all(w.returncode == 0 for w in workers), text
    assert "internal" not in text and "Task exception was never retrieved" not in text, text
    assert stored_before_crash < PAGES  # the crash came mid-batch
    assert summary["finished"] and summary["states"]["succeeded"] == PAGES, summary

    listed = subprocess.run([SHEAF, "list", "--json"], env=env, capture_output=True,
                            check=False)
    documents = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted(d["title"] for d in documents) == sorted(f"Survey {i}"
                                                           for i in range(PAGES))
    assert all(d["versions"] == 1 and len(d["sources"]) == 1 for d in documents)
