"""End to end with real processes: `sheaf ingest --queue` enqueues files and URLs served
on 127.0.0.1, two `sheaf worker` processes ingest them, one is killed (`kill -9`) in the
middle of a job that stalls until the test lets it go, and the batch still completes with
every document stored once; `sheaf search` and `sheaf quote` then answer from the store.

The store is PostgreSQL with blobs in S3 when the PostgreSQL store adapter is installed
(both workers run side by side); otherwise the DuckDB file, which one process opens at a
time, so the second worker starts once the first is dead."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from aiohttp import web

from tests.entrypoints.cli_runner import SHEAF
from tests.local_server import LocalServer

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
pytest.importorskip("procrastinate", reason="procrastinate (the queue extra) is absent")
SHARED_STORE = importlib.util.find_spec("sheaf.adapters.postgres_store") is not None
TOPICS = ["harbour tides", "lantern glass", "marble quarries", "river otters",
          "cloud forests", "stone bridges"]


def _page(topic: str) -> str:
    words = topic.split()
    return (f"<html><head><title>On {topic}</title></head><body><article><h1>On {topic}"
            f"</h1><h2>Findings</h2><p>The survey of {topic} found that {words[1]} "
            f"mattered more than expected. Observers logged every {words[0]} at dawn."
            f"</p><p>A second season confirmed the {words[1]} pattern near the coast."
            "</p></article></body></html>")


def _environment(tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, str]:
    queue = request.getfixturevalue("postgres_database")
    env = {**os.environ, "SHEAF_ALLOW_PRIVATE_NETWORK": "1", "SHEAF_EMBEDDER": "hashing",
           "LOG_LEVEL": "warning", "PYTHONUNBUFFERED": "1"}
    if SHARED_STORE:
        # The queue's tables live in the store's own database: no SHEAF_QUEUE needed.
        s3 = request.getfixturevalue("s3_server")
        env |= s3.environment() | {"SHEAF_STORE": queue,
                                   "SHEAF_BLOBS": f"s3://{s3.create_bucket()}/kb"}
    else:
        env |= {"SHEAF_STORE": str(tmp_path / "kb.duckdb"), "SHEAF_QUEUE": queue}
    return env


async def _sheaf(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    done = await anyio.run_process([SHEAF, *args], env=env, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()
    return done


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([SHEAF, "worker", "--concurrency", "2", "--heartbeat", "0.5",
                             "--retry-wait", "0.2", "--grace", "5"], env=env,
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"))


async def _until(condition, what: str, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    with anyio.fail_after(timeout, shield=False):
        while not condition():
            await anyio.sleep(0.05)


async def test_a_killed_worker_costs_nothing_but_time(
        local_server: LocalServer, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    env = _environment(tmp_path, request)
    stalled, release = anyio.Event(), anyio.Event()

    async def stall(_: web.Request) -> web.StreamResponse:
        stalled.set()
        await release.wait()  # until the worker fetching it is dead
        return web.Response(text=_page("slow tides"), content_type="text/html")

    local_server.route("/stall", stall)
    for index, topic in enumerate(TOPICS):
        local_server.add(f"/page/{index}", _page(topic), content_type="text/html")
    notes = tmp_path / "notes"
    notes.mkdir()
    for index in range(3):
        (notes / f"note {index}.md").write_text(
            f"# Field note {index}\n\nThe keeper counted {index + 3} herons on the weir. "
            "Nobody else saw them.\n")
    urls = [local_server.url("/stall")] + [local_server.url(f"/page/{i}")
                                           for i in range(len(TOPICS))]
    # The stalling page is first: the first worker, alone for a moment, takes it.
    enqueued = await _sheaf(env, "ingest", "--queue", "--json", *urls, str(notes))
    batch = json.loads(enqueued.stdout)["batch"]
    assert json.loads(enqueued.stdout)["enqueued"] == len(urls) + 3

    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    first = _worker(env, logs[0])
    second = None
    try:
        await _until(stalled.is_set, "the first worker fetching /stall")
        if SHARED_STORE:
            second = _worker(env, logs[1])
            await _until(lambda: b"new" in logs[1].read_bytes(), "the second worker at work")
        os.kill(first.pid, signal.SIGKILL)  # mid-job: its fetch is still open
        first.wait()
        release.set()
        if not SHARED_STORE:
            second = _worker(env, logs[1])
        summary: dict[str, object] = {}

        def finished() -> bool:
            done = subprocess.run([SHEAF, "batch", batch, "--json"], env=env,
                                  capture_output=True, check=False)
            summary.update(json.loads(done.stdout))
            return bool(summary["finished"])

        await _until(finished, "the batch to finish", timeout=90)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)
    assert second is not None and second.returncode == 0, logs[1].read_text()

    assert summary["states"] == {"waiting": 0, "running": 0, "succeeded": len(urls) + 3,
                                 "failed": 0, "cancelled": 0}, summary
    each = json.loads((await _sheaf(env, "batch", batch, "--jobs", "--json")).stdout)["each"]
    tries = {job["source"]: job["attempts"] for job in each}
    assert tries[local_server.url("/stall")] == 2  # killed once, then done by the other
    # Every document once, each with one version, whatever ran twice.
    listed = [json.loads(line) for line in
              (await _sheaf(env, "list", "--json")).stdout.splitlines()]
    assert len(listed) == len(urls) + 3
    assert sorted(d["title"] for d in listed) == sorted(
        [f"On {t}" for t in [*TOPICS, "slow tides"]] + [f"Field note {i}" for i in range(3)])
    assert all(d["versions"] == 1 and len(d["sources"]) == 1 for d in listed), listed
    (space,) = json.loads((await _sheaf(env, "status", "--json")).stdout)["spaces"]
    assert space["documents"] == space["versions"] == len(urls) + 3

    hits = [json.loads(line) for line in (await _sheaf(
        env, "search", "marble quarries survey", "--json", "--k", "1")).stdout.splitlines()]
    assert hits and hits[0]["title"] == "On marble quarries"
    quote = json.loads((await _sheaf(
        env, "quote", hits[0]["document_id"], "--text",
        "Observers logged every marble at dawn", "--json")).stdout)
    assert quote["text"] == "Observers logged every marble at dawn"
    print(f"\nstore: {'PostgreSQL + S3' if SHARED_STORE else 'DuckDB'}; python "
          f"{sys.version.split()[0]}", file=sys.stderr)
