"""`sheaf ingest --queue`, `sheaf worker --until-idle` and `sheaf batch` in-process, on the
tests' PostgreSQL (the queue) and a DuckDB file (the store, one worker)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from tests.entrypoints.cli_runner import SHEAF, run, run_async
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio
pytest.importorskip("procrastinate", reason="procrastinate (the queue extra) is absent")
PAGE = ("<html><head><title>Kelp</title></head><body><article><h1>Kelp</h1><p>Kelp "
        "forests shelter fish, and the otters keep urchins in check.</p></article></body>"
        "</html>")
# A worker silent for three heartbeats is taken for dead and its jobs requeued: at 0.5 s a
# machine loaded by parallel test workers stalled the worker's own loop for 1.5 s and it
# requeued its own job. Nothing here tests stalls, and 1.5 s runs as fast as 0.5 s did.
WORKER = ("worker", "--until-idle", "--retry-wait", "0.05", "--heartbeat", "1.5",
          "--allow-private")


@pytest.fixture
def env(postgres_database: str, tmp_path: Path) -> dict[str, str]:
    return {"SHEAF_QUEUE": postgres_database, "SHEAF_STORE": str(tmp_path / "kb.duckdb"),
            "SHEAF_EMBEDDER": "hashing"}


async def _busy(url: str) -> int:
    """Jobs waiting in the queue; none while the enqueuing command has not yet made the
    queue's tables (this test may be the first on its database, as under xdist)."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(url) as connection:
        try:
            row = await (await connection.execute(
                "SELECT count(*) FROM procrastinate_jobs WHERE status = 'todo'")).fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
    return int(row[0]) if row else 0


async def test_enqueue_work_and_summarise_a_batch(local_server: LocalServer, tmp_path: Path,
                                                  env: dict[str, str]) -> None:
    local_server.add("/kelp", PAGE, content_type="text/html")
    note = tmp_path / "field note.md"
    note.write_text("# Field note\n\nThe keeper counted nine herons on the weir.\n")
    enqueued = await run_async("ingest", "--queue", "--json", str(note),
                               str(tmp_path / "missing.md"), local_server.url("/kelp"),
                               local_server.url("/gone"), env=env)
    assert enqueued.exit_code == 1  # a file could not be read: refused, the rest queued
    payload = json.loads(enqueued.stdout)
    assert payload["enqueued"] == 3
    assert [r["error_kind"] for r in payload["refused"]] == ["input_not_found"]

    worked = await run_async(*WORKER, env=env)
    assert worked.exit_code == 0, worked.output
    assert "new       " + str(note) in worked.stderr

    summary = await run_async("batch", payload["batch"], "--json", "--jobs", env=env)
    assert summary.exit_code == 1  # one job failed
    shown = json.loads(summary.stdout)
    assert shown["finished"] and shown["states"]["succeeded"] == 2
    assert shown["outcomes"]["new"] == 2
    (failure,) = shown["failures"]
    assert failure["source"] == local_server.url("/gone")
    assert failure["error_kind"] == "not_found" and failure["attempts"] == 1
    assert {job["source"] for job in shown["each"]} == {
        str(note), local_server.url("/kelp"), local_server.url("/gone")}
    text = await run_async("batch", payload["batch"], env=env)
    assert f"failed {local_server.url('/gone')}: not_found" in text.stdout

    listed = await run_async("list", "--json", env=env)
    assert {json.loads(line)["title"] for line in listed.stdout.splitlines()} == {
        "Field note", "Kelp"}


async def test_ingest_queue_wait_follows_the_batch_to_its_end(
        local_server: LocalServer, tmp_path: Path, env: dict[str, str]) -> None:
    local_server.add("/kelp", PAGE, content_type="text/html")
    results = {}

    async def enqueue_and_wait() -> None:
        results["wait"] = await run_async("ingest", "--queue", "--wait",
                                          local_server.url("/kelp"), env=env)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(enqueue_and_wait)
        with anyio.fail_after(30):
            while not await _busy(env["SHEAF_QUEUE"]):
                await anyio.sleep(0.05)
        # A process, not the in-process runner: two runners at once share sys.stdout.
        worker = await anyio.run_process([SHEAF, *WORKER], env=os.environ | env,
                                         check=False)
        assert worker.returncode == 0, worker.stderr
    waited = results["wait"]
    assert waited.exit_code == 0, waited.output
    assert "1 jobs, finished: 0 waiting, 0 running, 1 succeeded" in waited.stdout
    assert "outcomes: 1 new" in waited.stdout


@pytest.mark.parametrize("flags, complaint", [
    (["--dry-run"], "--dry-run cannot be queued"),
    (["--timeout", "5"], "are the workers' settings"),
    (["--allow-private"], "are the workers' settings"),
])
def test_what_cannot_be_queued_is_a_usage_error(flags: list[str], complaint: str,
                                                env: dict[str, str]) -> None:
    done = run("ingest", "--queue", "https://example.org/", *flags, env=env)
    assert done.exit_code == 2 and complaint in done.stderr


def test_no_queue_configured_is_a_configuration_error(tmp_path: Path) -> None:
    done = run("ingest", "--queue", "https://example.org/",
               env={"SHEAF_STORE": str(tmp_path / "kb.duckdb"), "SHEAF_QUEUE": ""})
    assert done.exit_code == 2
    assert done.stderr.startswith("sheaf: error: configuration: SHEAF_QUEUE: ")
    bad = run("batch", "b1", env={"SHEAF_QUEUE": "mysql://db/x"})
    assert bad.exit_code == 2 and "wants a PostgreSQL URL" in bad.stderr


async def test_a_tree_of_folders_without_recursive_is_said_and_fails(
        tmp_path: Path, env: dict[str, str]) -> None:
    """Folders holding only folders: nothing goes in, each folder left out is named,
    and the command fails, instead of "0 jobs enqueued" and success."""
    tree = tmp_path / "tree"
    for name in ("alpha", "beta/deeper"):
        (tree / name).mkdir(parents=True)
        (tree / name / "note.md").write_text("# Note\n\nHerons on the weir.\n")
    queued = await run_async("ingest", "--queue", str(tree), env=env)
    assert queued.exit_code == 1
    assert "nothing to enqueue" in queued.stderr
    assert f"skipped {tree / 'alpha'}: a folder: walked only with --recursive" \
        in queued.stderr
    local = await run_async("ingest", str(tree), env=env)
    assert local.exit_code == 1 and "nothing to ingest" in local.stderr
    walked = await run_async("ingest", "--queue", "--json", "--recursive", str(tree),
                             env=env)
    assert walked.exit_code == 0 and json.loads(walked.stdout)["enqueued"] == 2
    assert (await run_async(*WORKER, env=env)).exit_code == 0
