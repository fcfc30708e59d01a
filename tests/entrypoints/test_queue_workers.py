"""End to end with real processes: `sheaf ingest --queue` enqueues files and URLs served
on 127.0.0.1 into PostgreSQL with blobs in S3, two `sheaf worker` processes ingest them
side by side, one is killed (`kill -9`) in the middle of a job that stalls until the test
lets it go, and the batch still completes with every document stored once; `sheaf
search` and `sheaf quote` then answer from PostgreSQL.

The pages answer only when the test says so, so the order is fixed: the first worker
takes the stalling page and one more, the second starts and takes two, both finish
pages, then the first is killed while it still fetches the stalling one."""

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

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
pytest.importorskip("procrastinate", reason="procrastinate (the queue extra) is absent")
TOPICS = ["harbour tides", "lantern glass", "marble quarries", "river otters",
          "cloud forests", "stone bridges"]


def _page(topic: str) -> str:
    words = topic.split()
    return (f"<html><head><title>On {topic}</title></head><body><article><h1>On {topic}"
            f"</h1><h2>Findings</h2><p>The survey of {topic} found that {words[1]} "
            f"mattered more than expected. Observers logged every {words[0]} at dawn."
            f"</p><p>A second season confirmed the {words[1]} pattern near the coast."
            "</p></article></body></html>")


def _environment(request: pytest.FixtureRequest) -> dict[str, str]:
    s3 = request.getfixturevalue("s3_server")
    # The queue's tables live in the store's own database: no SHEAF_QUEUE.
    return {**os.environ, **s3.environment(), "SHEAF_ALLOW_PRIVATE_NETWORK": "1",
            "SHEAF_EMBEDDER": "hashing", "LOG_LEVEL": "warning", "SHEAF_QUEUE": "",
            "SHEAF_STORE": request.getfixturevalue("postgres_database"),
            "SHEAF_BLOBS": f"s3://{s3.create_bucket()}/kb"}


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
    env = _environment(request)
    stalled, go, release = anyio.Event(), anyio.Event(), anyio.Event()
    fetching = 0

    async def stall(_: web.Request) -> web.StreamResponse:
        stalled.set()
        await release.wait()  # until the worker fetching it is dead
        return web.Response(text=_page("slow tides"), content_type="text/html")

    def gated(body: str):  # type: ignore[no-untyped-def]
        async def page(_: web.Request) -> web.StreamResponse:
            nonlocal fetching
            fetching += 1
            await go.wait()
            return web.Response(text=body, content_type="text/html")
        return page

    local_server.route("/stall", stall)
    for index, topic in enumerate(TOPICS):
        local_server.route(f"/page/{index}", gated(_page(topic)))
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
        await _until(lambda: stalled.is_set() and fetching == 1, "A: /stall and a page")
        second = _worker(env, logs[1])
        await _until(lambda: fetching == 3, "B: two pages")
        go.set()
        await _until(lambda: all(b"new " in log.read_bytes() for log in logs),
                     "both workers storing documents")
        os.kill(first.pid, signal.SIGKILL)  # mid-job: its fetch of /stall is still open
        first.wait()
        release.set()
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
    assert b"/stall" not in logs[0].read_bytes()  # the first never finished it
    assert b"new       " + local_server.url("/stall").encode() in logs[1].read_bytes()

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
    # The files' bytes went to S3 when they were enqueued; the workers read them there.
    bucket = env["SHEAF_BLOBS"].removeprefix("s3://").split("/")[0]
    listing = request.getfixturevalue("s3_server").client().list_objects_v2(
        Bucket=bucket, Prefix="kb/raw/")
    assert listing["KeyCount"] >= len(urls) + 3

    hits = [json.loads(line) for line in (await _sheaf(
        env, "search", "marble quarries survey", "--json", "--k", "1")).stdout.splitlines()]
    assert hits and hits[0]["title"] == "On marble quarries"
    quote = json.loads((await _sheaf(
        env, "quote", hits[0]["document_id"], "--text",
        "Observers logged every marble at dawn", "--json")).stdout)
    assert quote["text"] == "Observers logged every marble at dawn"
