"""Every command that can run through a store's holder, run with the same assertions on a
store this process opens and on one that a `sheaf serve` process holds (ADR-0022): one
command body on `KnowledgeApi`, `Knowledge` or `HeldKnowledge` under it.

The commands run in this process (click's runner); the holder is a real `sheaf serve` on
loopback. Holding the store, it leaves a command that did not go through it waiting, then
`store_locked`: so every assertion below that a held run passes, it passed through the
holder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import Result

from sheaf.entrypoints.api.held_store import read_holder
from tests.entrypoints.cli_runner import run

NOTES = {"tides.md": "# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide.\n\n"
                     "## Results\n\nSeagrass grew with the tides. Shoot density doubled.\n",
         "foxes.md": "# Foxes\n\n## Results\n\nUrban foxes eat from bins at night.\n"}


@attrs.frozen
class Base:
    """A store with the two notes in its default space, and how commands reach it."""

    folder: Path
    env: dict[str, str]
    held: bool

    @property
    def tides(self) -> str:
        return str(self.folder / "tides.md")

    def sheaf(self, *args: str | Path) -> Result:
        return run(*args, env=self.env)

    def ok(self, *args: str | Path) -> Result:
        done = self.sheaf(*args)
        assert done.exit_code == 0, (args, done.stderr)
        return done

    def records(self, *args: str | Path) -> list[Any]:
        return [json.loads(line) for line in self.ok(*args).stdout.splitlines()]


def _serve(env: dict[str, str], store: Path) -> subprocess.Popen[str]:
    server = subprocess.Popen([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "serve",
                               "--port", "0"], env={**os.environ, **env}, text=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while read_holder(store) is None:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        assert time.monotonic() < deadline, "sheaf serve published no holder file"
        time.sleep(0.05)
    return server


# The held store is a `sheaf serve` process of its own: its tests are integration (`make
# test-integration`, and .ci/run).
@pytest.fixture(scope="module", params=["local",
                                        pytest.param("held", marks=pytest.mark.integration)])
def base(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[Base]:
    folder = tmp_path_factory.mktemp(request.param)
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    store = folder / "kb.duckdb"
    env = {"SHEAF_STORE": str(store), "SHEAF_LOCK_WAIT": "0.5"}
    found = Base(folder, env, held=request.param == "held")
    found.ok("ingest", folder / "tides.md", folder / "foxes.md")
    # Without the listing the store leaves beside it (ADR-0024), `list` asks the store.
    Path(f"{store}.listing").unlink()
    if not found.held:
        yield found
        return
    server = _serve(env, store)
    try:
        # A command with no held path waits, then finds the store taken: so do the others,
        # unless they go through the holder.
        assert found.sheaf("chunks", found.tides).exit_code == 75
        yield found
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_list(base: Base) -> None:
    lines = base.ok("list").stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("doc_") for line in lines)
    assert {"Tides", "Foxes"} <= {word for line in lines for word in line.split()}
    listed = base.records("list", "--json")
    assert {r["title"] for r in listed} == {"Tides", "Foxes"}
    tides = next(r for r in listed if r["title"] == "Tides")
    assert tides["location"]["path"] == base.tides and tides["space"] == "default"


def test_show(base: Base) -> None:
    shown = base.ok("show", base.tides).stdout
    assert shown.splitlines()[1].split() == ["title", "Tides"]
    assert f"source        {base.tides}" in shown
    detail = json.loads(base.ok("show", base.tides, "--json").stdout)
    assert detail["title"] == "Tides" and len(detail["history"]) == 1
    assert detail["history"][0]["id"] == detail["version"]
    markdown = base.ok("show", base.tides, "--markdown").stdout
    assert markdown.startswith("# Tides\n") and "Shoot density doubled." in markdown
    meta = json.loads(base.ok("show", base.tides, "--meta").stdout)
    assert meta["caller_metadata"] == {} and meta["caller_version_id"] is None
    assert base.ok("show", base.tides, "--diagnostics").stdout.strip()
    missing = base.sheaf("show", "no-such-document")
    assert missing.exit_code == 1
    assert missing.stderr.startswith("sheaf: error: document_not_found: ")


def test_sections(base: Base) -> None:
    labels = [line.split()[0] for line in base.ok("sections", base.tides).stdout.splitlines()]
    assert "methods" in labels and "results" in labels
    found = base.records("sections", base.tides, "--json")
    assert [s["label"] for s in found] == labels
    assert all(s["start"] < s["end"] for s in found)


def test_search(base: Base) -> None:
    first = base.ok("search", "seagrass tides", "--mode", "bm25").stdout.splitlines()[0]
    assert first.startswith(" 1. ") and "Tides" in first
    hits = base.records("search", "seagrass", "--json", "--k", "3", "--section", "results",
                        "--expand", "parent-section")
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1)) and hits
    assert all(h["section"] == "results" and h["context"]["text"] for h in hits)
    queries = base.folder / "queries.jsonl"
    queries.write_text('{"id": "q1", "text": "urban foxes"}\n{"id": "q2", "text": "tide"}\n')
    answers = base.records("search", "--queries", queries, "--mode", "bm25")
    assert [a["id"] for a in answers] == ["q1", "q2"]
    assert answers[0]["results"][0]["title"] is None  # batches leave titles out
    refused = base.sheaf("search", "   ")
    assert refused.exit_code == 2 and "invalid_query" in refused.stderr


def test_quote(base: Base) -> None:
    done = base.ok("quote", base.tides, "--text", "shoot density doubled")
    passage, citation = done.stdout.splitlines()
    assert passage == "Shoot density doubled"
    assert citation.startswith("-- Tides (file://") and "match" in citation
    (first,) = base.records("quote", base.tides, "--section", "results", "--first", "1",
                            "--json")
    assert first["text"] == "Seagrass grew with the tides." and first["section_path"]
    lines = base.ok("quote", base.tides, "--lines", "1-1").stdout
    assert lines.splitlines()[0] == "# Tides"
    missing = base.sheaf("quote", base.tides, "--text", "not in the text at all, anywhere")
    assert missing.exit_code == 1
    assert missing.stderr.startswith("sheaf: error: quote_not_found: ")


def test_status(base: Base) -> None:
    shown = base.ok("status").stdout
    assert f"store          {base.env['SHEAF_STORE']}" in shown
    assert "space default   2 documents, 2 versions, 2 sources" in shown
    found = json.loads(base.ok("status", "--json").stdout)
    default = next(s for s in found["spaces"] if s["space"] == "default")
    assert default == {"space": "default", "documents": 2, "versions": 2, "sources": 2}


def test_space(base: Base) -> None:
    (policy,) = base.records("space", "rules", "--disable", "--max-bytes", "1000",
                             "--kinds", "html,raw", "--enrich", "", "--json")
    assert policy == {"space": "rules", "ingestion_enabled": False, "max_bytes": 1000,
                      "allowed_kinds": ["html", "raw"], "enrich": []}
    assert base.records("space", "rules", "--json") == [policy]
    refused = base.sheaf("ingest", base.tides, "--space", "rules")
    assert refused.exit_code == 1 and "ingestion_disabled" in refused.stderr
    shown = base.ok("space", "rules", "--enable").stdout
    assert "ingestion_enabled  True" in shown.splitlines()
    wrong = base.sheaf("space", "rules", "--kinds", "paper")
    assert wrong.exit_code == 2 and "content kinds are" in wrong.stderr


def test_ingest(base: Base, monkeypatch: pytest.MonkeyPatch) -> None:
    inbox = base.folder / "inbox"
    inbox.mkdir()
    (inbox / "owls.md").write_text("# Owls\n\nOwls hunt at dusk.\n")
    (inbox / ".hidden.md").write_text("# Hidden\n")
    (base.folder / "note.md").write_text("# Note\n\nA note given by a relative path.\n")
    monkeypatch.chdir(base.folder)
    lines = base.records("ingest", inbox, "note.md", "--space", "inbox", "--json",
                         "--metadata", "team=blue")
    assert (lines[0]["status"], Path(lines[0]["source"]).name) == ("skipped", ".hidden.md")
    assert sorted((line["status"], Path(line["source"]).name) for line in lines[1:]) == [
        ("new", "note.md"), ("new", "owls.md")]
    assert "note.md" in [line["source"] for line in lines]  # printed as it was given
    again = base.ok("ingest", "note.md", "--space", "inbox")
    assert again.stderr.splitlines()[0] == "[1/1] unchanged note.md"
    assert "summary: 0 new, 1 unchanged" in again.stderr
    listed = base.records("list", "--space", "inbox", "--json")
    assert sorted(r["title"] for r in listed) == ["Note", "Owls"]
    assert all(r["caller_metadata"] == {"team": "blue"} for r in listed)
    failed = base.sheaf("ingest", "missing.md", "--space", "inbox")
    assert failed.exit_code == 1
    assert "  failed missing.md: input_not_found: " in failed.stderr


def test_remove(base: Base) -> None:
    base.ok("ingest", base.tides, "--space", "trash")
    removed = base.ok("remove", base.tides, "--space", "trash")
    assert removed.stderr.startswith("removed doc_") and removed.stderr.endswith(
        " (Tides)\n")
    assert base.records("list", "--space", "trash", "--json") == []
    again = base.sheaf("remove", base.tides, "--space", "trash")
    assert again.exit_code == 1 and "document_not_found" in again.stderr


def test_reconcile(base: Base) -> None:
    batch = base.folder / "sources.txt"
    batch.write_text(f"{base.tides}\n{base.folder / 'gone.md'}\n")
    done = base.sheaf("reconcile", "--batch", batch)
    assert done.exit_code == 1  # not everything is present
    assert sorted(done.stdout.splitlines()) == [f"present     {base.tides}",
                                                f"unreachable {base.folder / 'gone.md'}"]
    assert done.stderr == "summary: 1 present, 0 stale, 0 missing, 1 unreachable\n"
