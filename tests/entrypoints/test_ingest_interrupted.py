"""An ingest killed mid-batch leaves a consistent store, and `--resume` finishes the work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

from tests.entrypoints.cli_runner import SAMPLES, SHEAF, run

DOCUMENTS = 120


def _consistent(store: Path) -> int:
    """Every document has its current version and its chunks, every version its blocks and
    Markdown blob;
    returns the number of documents."""
    with duckdb.connect(str(store), read_only=True) as db:
        orphans = db.execute(
            "SELECT count(*) FROM versions v LEFT JOIN documents d ON d.id = v.document_id "
            "WHERE d.id IS NULL").fetchone()
        headless = db.execute(
            "SELECT count(*) FROM documents d LEFT JOIN versions v ON v.id = d.current_version "
            "WHERE v.id IS NULL").fetchone()
        blockless = db.execute(
            "SELECT count(*) FROM versions WHERE blocks = '[]'").fetchone()
        chunkless = db.execute(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.version_id = d.current_version)").fetchone()
        # The full-text index holds exactly the stored snippets (groups of documents
        # are indexed together: a killed group leaves none of its postings).
        unindexed = db.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN text_docs t ON t.chunk_id = c.id "
            "WHERE c.level = 'snippet' AND t.docid IS NULL").fetchone()
        stray = db.execute(
            "SELECT (SELECT count(*) FROM text_docs t LEFT JOIN chunks c ON c.id = t.chunk_id "
            "WHERE c.id IS NULL) + (SELECT count(*) FROM text_postings p LEFT JOIN text_docs "
            "t USING (docid) WHERE t.docid IS NULL)").fetchone()
        totals = db.execute(
            "SELECT (SELECT coalesce(sum(docs), 0) FROM text_spaces) = count(*) AND "
            "(SELECT coalesce(sum(length), 0) FROM text_spaces) = coalesce(sum(length), 0) "
            "FROM text_docs").fetchone()
        assert unindexed == (0,) and stray == (0,) and totals == (True,)
        shas = [sha for r in db.execute("SELECT markdown_sha, fetched_sha FROM versions"
                                        ).fetchall() for sha in r]
        # A small document's blobs are held in the file, committed with it (ADR-0047).
        held = {r[0] for r in db.execute("SELECT lower(hex(sha)) FROM held_blobs").fetchall()}
        documents = db.execute("SELECT count(*) FROM documents").fetchone()
    assert orphans == (0,) and headless == (0,) and blockless == (0,) and chunkless == (0,)
    blobs = store.with_suffix(".blobs") / "raw"
    assert all(sha in held or (blobs / sha[:2] / sha).exists() for sha in shas)
    assert documents is not None
    return int(documents[0])


@pytest.mark.slow  # kills real ingests: `make test-slow` and .ci/run
def test_killed_ingest_is_consistent_and_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    page = (SAMPLES / "article.html").read_text()
    for i in range(DOCUMENTS):
        (folder / f"page{i:03}.html").write_text(page.replace("Night Shifts", f"Night {i}"))
    store = tmp_path / "kb.duckdb"
    command = [SHEAF, "ingest", str(folder), "--store", str(store), "--json",
               "--concurrency", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    done_before_kill = 0
    deadline = time.monotonic() + 60
    while done_before_kill < 10 and time.monotonic() < deadline:
        if process.stdout.readline():
            done_before_kill += 1
    os.kill(process.pid, signal.SIGKILL)
    process.wait()

    stored = _consistent(store)
    assert 10 <= stored < DOCUMENTS

    rerun = run(*command[1:], "--resume")
    assert rerun.exit_code == 0, rerun.output
    statuses = [json.loads(line)["status"] for line in rerun.stdout.splitlines()]
    assert statuses.count("unchanged") == stored
    assert statuses.count("new") == DOCUMENTS - stored
    assert _consistent(store) == DOCUMENTS
