"""Several sheaf processes on one store (ADR-0022): while one holds it, the others run
through it with the same output, or wait and then get `store_locked` naming it. Real
processes, loopback only."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sheaf import Knowledge, StoreError
from sheaf.domain.errors import ErrorKind
from sheaf.entrypoints.api.held_store import (
    HolderRecord,
    compatibility,
    holder_path,
    publish,
    read_holder,
)
from sheaf.entrypoints.api.settings import Settings

NOTES = {"tides.md": "# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide.\n\n"
                     "## Results\n\nSeagrass grew with the tides. Shoot density doubled.\n",
         "foxes.md": "# Foxes\n\n## Results\n\nUrban foxes eat from bins at night.\n"}
# Several real processes at once: `make test-integration` (and .ci/run) runs them.
pytestmark = pytest.mark.integration


def sheaf(env: dict[str, str], *args: str, cwd: Path | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sheaf.entrypoints.cli.cli", *args],
                          capture_output=True, text=True, check=False, timeout=120,
                          env=env, cwd=cwd)


def environment(folder: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder),
            "SHEAF_STORE": str(folder / "kb.duckdb"), "SHEAF_LOCK_WAIT": "0.5"}


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
    env = environment(tmp_path)
    done = sheaf(env, "ingest", str(tmp_path / "tides.md"), str(tmp_path / "foxes.md"))
    assert done.returncode == 0, done.stderr
    return tmp_path, env


@pytest.fixture
def serving(store: tuple[Path, dict[str, str]]) -> Iterator[subprocess.Popen[str]]:
    folder, env = store
    server = subprocess.Popen([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "serve",
                               "--port", "0"], env=env, text=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while read_holder(folder / "kb.duckdb") is None:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        assert time.monotonic() < deadline, "sheaf serve published no holder file"
        time.sleep(0.05)
    yield server
    server.terminate()
    server.wait(timeout=30)


READS = (("list",), ("list", "--json"), ("show", "{doc}"), ("show", "{doc}", "--json"),
         ("show", "{doc}", "--markdown"), ("sections", "{doc}"),
         ("search", "seagrass tides", "--mode", "bm25"),
         ("search", "seagrass", "--json", "--k", "3", "--section", "results",
          "--expand", "parent-section"),
         ("quote", "{doc}", "--text", "shoot density doubled"),
         ("quote", "{doc}", "--section", "results", "--first", "1", "--json"),
         ("status",), ("status", "--json"),
         # Through a holder since KnowledgeApi: what the public API did not give.
         ("show", "{doc}", "--meta"), ("sections", "{doc}", "--json"),
         ("search", "--queries", "{folder}/queries.jsonl", "--mode", "bm25"),
         ("space", "default", "--json"),
         ("reconcile", "--batch", "{folder}/sources.txt", "--concurrency", "1"),
         ("quote", "{doc}", "--text", "not in the text at all, anywhere"),
         ("show", "no-such-document"))


def concurrently(env: dict[str, str], commands: list[list[str]]
                 ) -> list[tuple[int, str, str]]:
    """Every command at once (through the holder they need not take turns)."""
    runs = [subprocess.Popen([sys.executable, "-m", "sheaf.entrypoints.cli.cli", *argv],
                             env=env, text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE) for argv in commands]
    found = []
    for run in runs:
        out, errors = run.communicate(timeout=120)
        found.append((run.returncode, out, errors))
    return found


def test_reads_through_a_running_server_print_what_a_direct_run_prints(
        store: tuple[Path, dict[str, str]], serving: subprocess.Popen[str]) -> None:
    folder, env = store
    holder = read_holder(folder / "kb.duckdb")
    assert holder is not None and holder.pid == serving.pid
    assert holder.command == "sheaf serve"
    assert holder_path(folder / "kb.duckdb").stat().st_mode & 0o777 == 0o600
    doc = str(folder / "tides.md")  # a document named by its path
    (folder / "queries.jsonl").write_text('{"id": "q1", "text": "seagrass"}\n'
                                          '{"id": "q2", "text": "urban foxes"}\n')
    (folder / "sources.txt").write_text(f"{doc}\n{folder / 'foxes.md'}\n")
    commands = [[a.format(doc=doc, folder=folder) for a in argv] for argv in READS]
    through = concurrently(env, commands)
    failed = [(argv, code, errors[-300:])
              for argv, (code, _, errors) in zip(READS[:-2], through, strict=False) if code]
    assert not failed
    # A command the holder cannot serve waits, then names it: pid, command, what to do.
    locked = sheaf(env, "chunks", doc)
    assert locked.returncode == 75
    assert locked.stderr.startswith("sheaf: error: store_locked: ")
    assert f"process {serving.pid} (sheaf serve)" in locked.stderr
    assert "SHEAF_LOCK_WAIT" in locked.stderr and "store_version" not in locked.stderr

    serving.terminate()
    serving.wait(timeout=30)
    assert not holder_path(folder / "kb.duckdb").exists()  # withdrawn on a clean exit
    direct = [sheaf(env, *argv) for argv in commands]
    for argv, via, own in zip(READS, through, direct, strict=True):
        assert via == (own.returncode, own.stdout, own.stderr), argv


def test_an_ingest_through_the_server_is_stored_as_a_direct_one_would_be(
        store: tuple[Path, dict[str, str]], serving: subprocess.Popen[str]) -> None:
    folder, env = store
    (folder / "notes").mkdir()
    (folder / "notes" / "owls.md").write_text("# Owls\n\nOwls hunt at dusk.\n")
    (folder / "notes" / ".hidden.md").write_text("# Hidden\n")
    done = sheaf(env, "ingest", "notes", "--metadata", "team=blue", "--json", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["status"] for line in lines] == ["skipped", "new"]
    listed = sheaf(env, "list", "--json")
    owls = next(json.loads(line) for line in listed.stdout.splitlines()
                if json.loads(line)["title"] == "Owls")
    assert owls["caller_metadata"] == {"team": "blue"}
    assert owls["location"]["path"] == str((folder / "notes" / "owls.md").resolve())


def test_two_ingests_at_once_both_end_stored(tmp_path: Path) -> None:
    env = environment(tmp_path) | {"SHEAF_LOCK_WAIT": "60"}
    names = []
    for number in range(2):
        folder = tmp_path / f"batch{number}"
        folder.mkdir()
        for item in range(15):
            name = f"n{number}-{item}.md"
            (folder / name).write_text(f"# Note {number} {item}\n\nText {number} {item}.\n")
            names.append(name)
    runs = [subprocess.Popen([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "ingest",
                              str(tmp_path / f"batch{number}")], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for number in range(2)]
    for run in runs:
        _, errors = run.communicate(timeout=300)
        assert run.returncode == 0, errors
        assert "summary: 15 new" in errors
    listed = sheaf(env, "list", "--json")
    assert sorted(Path(json.loads(line)["sources"][0]["original"]).name
                  for line in listed.stdout.splitlines()) == sorted(names)


def test_a_stale_holder_file_is_ignored_and_removed(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    # A store to read (a read command on none is `store_not_found`).
    assert sheaf(environment(tmp_path), "space", "default", "--enable").returncode == 0
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    publish(store, HolderRecord(int(dead.stdout), "sheaf serve", "http://127.0.0.1:9",
                                "token"))
    assert holder_path(store).exists()
    assert read_holder(store) is None
    assert not holder_path(store).exists()
    done = sheaf(environment(tmp_path), "list")
    assert done.returncode == 0, done.stderr
    # A live pid whose address answers nothing (a reused pid): the command opens the
    # store itself.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    publish(store, HolderRecord(os.getpid(), "sheaf serve", f"http://127.0.0.1:{closed}",
                                "token", compatibility(Settings(store))))
    done = sheaf(environment(tmp_path), "list", "--json")
    assert done.returncode == 0, done.stderr


@pytest.mark.anyio
async def test_the_facade_on_a_held_store_waits_then_raises_store_locked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "kb.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('open', flush=True); sys.stdin.read()", str(store)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        monkeypatch.setenv("SHEAF_LOCK_WAIT", "0.3")
        started = time.monotonic()
        with pytest.raises(StoreError) as caught:
            async with Knowledge.open(store):
                pass
        assert time.monotonic() - started >= 0.3  # it waited before giving up
        assert caught.value.kind is ErrorKind.STORE_LOCKED
        assert f"is held by process {holder.pid} (" in caught.value.message
    finally:
        holder.communicate("", timeout=30)
    async with Knowledge.open(store) as kb:  # freed: it opens
        assert await kb.documents() == []


@pytest.mark.anyio
async def test_a_holder_that_is_done_waits_for_the_batch_running_through_it(
        tmp_path: Path) -> None:
    import anyio

    from sheaf.entrypoints.holder.held_knowledge import HeldKnowledge
    from sheaf.entrypoints.holder.holder_client import HolderClient
    from sheaf.entrypoints.holder.store_holder import holding

    (tmp_path / "notes").mkdir()
    for number in range(12):
        (tmp_path / "notes" / f"n{number}.md").write_text(f"# Note {number}\n\nText.\n")
    settings = Settings.from_environment({}, store=tmp_path / "kb.duckdb")
    received: list[object] = []
    started = anyio.Event()

    def client(record: HolderRecord, token: anyio.lowlevel.EventLoopToken) -> None:
        """Another process's `sheaf ingest` through the holder, on its own event loop."""
        connection = HolderClient(record)

        async def batch() -> None:
            async for event in HeldKnowledge(connection, "default").ingest_many(
                    [str(tmp_path / "notes")], concurrency=1):
                received.append(event)
                if len(received) == 1:
                    anyio.from_thread.run_sync(started.set, token=token)

        try:
            anyio.run(batch)
        finally:
            connection.close()

    async with Knowledge.open(settings=settings) as kb:
        async with anyio.create_task_group() as tasks:
            async with holding(kb, settings, "sheaf ingest") as record:
                tasks.start_soon(anyio.to_thread.run_sync, client, record,
                                 anyio.lowlevel.current_token())
                await started.wait()
            # The holder's own work is done: it has withdrawn its file and waited.
            assert not holder_path(settings.store).exists()
        # Counted once the client has read to the end (its thread may still be reading
        # the last line when the holder is done): a holder that stopped before the batch
        # ended would have cut its stream short.
        assert len(received) == 12  # every source's result
        assert len(await kb.documents()) == 12


def test_a_holder_with_other_blobs_is_not_used() -> None:
    """Blobs decide what a command reads and where an ingest's bytes go: a holder
    publishing another blob location must not serve this command."""
    from sheaf.entrypoints.api.held_store import compatibility
    from sheaf.entrypoints.api.settings import Settings
    from sheaf.entrypoints.cli.cli_session import READ_SETTINGS
    from sheaf.entrypoints.cli.ingest_commands import HOLDER_SETTINGS

    here = compatibility(Settings.from_environment({}, store="/tmp/kb.duckdb"))
    there = compatibility(Settings.from_environment(
        {"SHEAF_BLOBS": "s3://bucket/prefix"}, store="/tmp/kb.duckdb"))
    differing = {key for key in here if here[key] != there[key]}
    assert differing == {"blobs"}
    assert "blobs" in READ_SETTINGS and "blobs" in HOLDER_SETTINGS
