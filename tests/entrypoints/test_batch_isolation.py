"""One source that fails unexpectedly is that source's `internal` failure; the rest of the
batch is stored, in the CLI and in the facade's `ingest_many`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sheaf.domain.store.document_analysis as analysis_module
from sheaf import Knowledge
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.cli.cli import main
from tests.entrypoints.cli_runner import SHEAF

pytestmark = pytest.mark.anyio


@pytest.fixture
def poisoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of five notes; profiling the text of one raises an unexpected error."""
    real = analysis_module.profile_text

    def profile(text: str, *args: Any) -> Any:
        if "nightshade" in text:
            raise RuntimeError("a defect deep inside\nwith a second line")
        return real(text, *args)

    monkeypatch.setattr(analysis_module, "profile_text", profile)
    folder = tmp_path / "notes"
    folder.mkdir()
    for index in range(5):
        plant = "nightshade" if index == 2 else f"fern{index}"
        (folder / f"note{index}.md").write_text(f"# Note {index}\n\nThe {plant} grows.\n")
    return folder


async def test_ingest_many_reports_the_bad_source_and_stores_the_rest(
        poisoned: Path, tmp_path: Path) -> None:
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
        results = [event.result async for event in kb.ingest_many([str(poisoned)])]
        stored = await kb.documents()
    assert len(results) == 5
    failed = [r for r in results if r.status is IngestStatus.FAILED]
    assert [Path(r.source).name for r in failed] == ["note2.md"]
    assert failed[0].error_kind == "internal"
    assert failed[0].message == "RuntimeError: a defect deep inside"
    assert len(stored) == 4


def test_the_cli_batch_goes_on_past_the_bad_source(poisoned: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "cli.duckdb"
    code = main(["ingest", str(poisoned), "--store", str(store), "--json"])
    out = capsys.readouterr().out
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert code == 1
    assert sorted(r["status"] for r in results) == ["failed", "new", "new", "new", "new"]
    assert main(["list", "--store", str(store)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4


async def test_noise_files_are_refused_as_unsupported_content(tmp_path: Path) -> None:
    folder = tmp_path / "noise"
    folder.mkdir()
    (folder / "zeros.txt").write_bytes(b"\x00" * 10_000)
    (folder / "random.html").write_bytes(random.Random(9).randbytes(20_000))
    (folder / "deep.json").write_text("[" * 100_000)
    (folder / "fine.md").write_text("# Fine\n\nReal words in a real file.\n")
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
        results = {Path(e.result.source).name: e.result
                   async for e in kb.ingest_many([str(folder)])}
    assert results["fine.md"].status is IngestStatus.NEW
    for name, kind in (("zeros.txt", "unsupported_content"),
                       ("random.html", "unsupported_content"), ("deep.json", "too_complex")):
        assert results[name].status is IngestStatus.FAILED, name
        assert results[name].error_kind == kind, (name, results[name].message)
    assert "NUL" in (results["zeros.txt"].message or "")


def test_serve_says_nothing_of_serving_when_the_store_is_locked(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    holder = subprocess.Popen([sys.executable, "-c",
                               "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(60)", str(store)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = subprocess.run([SHEAF, "serve", "--store", str(store), "--port", "0"],
                              capture_output=True, text=True, timeout=60, check=False)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode != 0
    assert "serving" not in done.stderr and "lock" in done.stderr.lower(), done.stderr
