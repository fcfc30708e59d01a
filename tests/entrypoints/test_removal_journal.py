"""A removal interrupted after its commit (kill -9 of `sheaf remove`, or a cancelled call)
is finished by the next open: the document's raw blob, Markdown and staged artifacts go;
`compact` also sweeps blobs nothing references (issue 30, item 6)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import anyio
import duckdb
import pytest

from sheaf import Knowledge
from sheaf.entrypoints.api.fault_injection import PAUSE_VARIABLE
from tests.entrypoints.cli_runner import SHEAF, run

pytestmark = pytest.mark.anyio


def _blob_files(store: Path) -> set[str]:
    """The blobs stored: files in the blob folder and those the file holds (ADR-0047),
    read while no process has the store open."""
    files = {p.name for p in (store.with_suffix(".blobs") / "raw").glob("??/*")}
    with duckdb.connect(str(store), read_only=True) as connection:
        held = {str(r[0]) for r in connection.execute(
            "SELECT lower(hex(sha)) FROM held_blobs").fetchall()}
    return files | held


def _artifact_files(store: Path) -> set[Path]:
    root = store.with_suffix(".blobs") / "versions"
    return {p for p in root.rglob("*") if p.is_file() and "journal" not in p.parts}


async def _store_with_two(tmp_path: Path) -> tuple[Path, str, set[str]]:
    """A store of two documents; the id of the first and the blobs only it holds."""
    store = tmp_path / "kb.duckdb"
    (tmp_path / "gone.txt").write_text("The lighthouse stood on the northern cape.\n" * 20)
    (tmp_path / "kept.txt").write_text("The ferry crossed the bay twice a day.\n" * 20)
    async with Knowledge.open(store, embedder="hashing") as kb:
        # Staged however fast they are extracted: a removal deletes staged artifacts too.
        kb._services.ingestion.stage_after = 0.0
        gone = await kb.ingest(str(tmp_path / "gone.txt"))
        await kb.ingest(str(tmp_path / "kept.txt"))
        record = await kb.record(str(gone.document_id))
    held = {sha for v in record.versions for sha in (v.fetched_sha, v.content_sha,
                                                      v.markdown_sha)}
    assert held <= _blob_files(store)
    return store, str(gone.document_id), held


async def test_a_removal_cancelled_after_its_commit_is_finished_by_the_next_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, document, held = await _store_with_two(tmp_path)
    artifacts_before = _artifact_files(store)
    monkeypatch.setenv(PAUSE_VARIABLE, "remove-committed")
    async with Knowledge.open(store, embedder="hashing") as kb:
        with anyio.move_on_after(1):
            await kb.remove(document)
    monkeypatch.delenv(PAUSE_VARIABLE)
    # The database has forgotten the document; its bytes are still there.
    assert held <= _blob_files(store)
    async with Knowledge.open(store, embedder="hashing") as kb:
        assert len(await kb.documents()) == 1
    assert not held & _blob_files(store)
    assert len(_artifact_files(store)) < len(artifacts_before)
    assert not (store.with_suffix(".blobs") / "versions" / "journal").exists()


async def test_a_journaled_removal_whose_commit_never_happened_is_rolled_back(
        tmp_path: Path) -> None:
    from sheaf.adapters.blobs.filesystem_artifact_store import FilesystemArtifactStore
    from sheaf.application.store.removal_journal import RemovalJournal
    from sheaf.domain.store.pending_removal import PendingRemoval

    store, document, held = await _store_with_two(tmp_path)
    journal = RemovalJournal(FilesystemArtifactStore(store.with_suffix(".blobs")))
    await journal.add(PendingRemoval("default", document, tuple(sorted(held)), ()))
    async with Knowledge.open(store, embedder="hashing") as kb:
        assert len(await kb.documents()) == 2  # the document is still there...
        assert (await kb.document(document)).markdown  # ...and so are its bytes
    assert await journal.pending() == ()


async def test_compact_sweeps_blobs_that_nothing_references(tmp_path: Path) -> None:
    store, _, held = await _store_with_two(tmp_path)
    orphan = "ab" + "0" * 62
    (store.with_suffix(".blobs") / "raw" / "ab").mkdir(parents=True, exist_ok=True)
    (store.with_suffix(".blobs") / "raw" / "ab" / orphan).write_bytes(b"left behind")
    async with Knowledge.open(store, embedder="hashing") as kb:
        await kb.compact()
        assert len(await kb.documents()) == 2
    assert orphan not in _blob_files(store) and held <= _blob_files(store)


@pytest.mark.slow  # kills a real `sheaf remove`
async def test_kill_9_during_sheaf_remove_is_finished_by_the_next_open(
        tmp_path: Path) -> None:
    store, document, held = await _store_with_two(tmp_path)
    process = subprocess.Popen([SHEAF, "remove", document, "--store", str(store)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, PAUSE_VARIABLE: "remove-committed"})
    assert process.stderr is not None
    line = await anyio.to_thread.run_sync(process.stderr.readline)
    assert b"paused at remove-committed" in line, line
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert held <= _blob_files(store), "the kill came before the commit's aftermath"
    status = await anyio.to_thread.run_sync(run, "status", "--store", str(store))
    assert status.exit_code == 0, status.output
    assert not held & _blob_files(store)
    again = await anyio.to_thread.run_sync(run, "remove", document, "--store", str(store))
    assert again.exit_code != 0 and "document_not_found" in again.output
