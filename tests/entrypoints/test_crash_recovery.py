"""A store whose writer was killed (`kill -9`) mid-ingest opens and answers correctly,
whichever command opens it first: here `status`, then `list`, then `search`. The ingest
that is killed is the installed command in a subprocess; the rest run in-process."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import SHEAF, run

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda",
         "sigma", "omega", "river", "stone", "cloud", "marble", "harbour", "lantern"]


def _write_sources(folder: Path, count: int) -> None:
    folder.mkdir()
    rng = random.Random(14)
    for index in range(count):
        paragraphs = ("\n\n".join(" ".join(rng.choice(WORDS) for _ in range(50))
                                  for _ in range(15)))
        (folder / f"note{index:03}.txt").write_text(f"Note {index}\n\n{paragraphs}\n")


def _kill_ingest_when_log_reaches(store: Path, sources: Path, wal_bytes: int) -> None:
    """Start a real ingest and SIGKILL it once its write-ahead log holds `wal_bytes`."""
    wal = Path(f"{store}.wal")
    process = subprocess.Popen([SHEAF, "ingest", str(sources), "--store", str(store)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if wal.exists() and wal.stat().st_size >= wal_bytes:
                break
            time.sleep(0.01)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the ingest ended before its kill point"


@pytest.mark.slow  # kills real ingests: `make test-slow` and .ci/run
@pytest.mark.parametrize("wal_bytes", [1, 200_000, 1_000_000])
def test_a_killed_ingest_leaves_a_store_that_answers(tmp_path: Path, wal_bytes: int) -> None:
    sources = tmp_path / "sources"
    _write_sources(sources, 200)
    store = tmp_path / "kb.duckdb"
    _kill_ingest_when_log_reaches(store, sources, wal_bytes)

    status = run("status", "--store", store, "--json")
    assert status.exit_code == 0, status.output
    counted = sum(space["documents"] for space in json.loads(status.stdout)["spaces"])

    listed = run("list", "--store", store)
    assert listed.exit_code == 0, listed.output
    assert len(listed.stdout.splitlines()) == counted

    searched = run("search", "gamma harbour", "--store", store, "--json")
    assert searched.exit_code == 0, searched.output
    if counted:
        hits = [json.loads(line) for line in searched.stdout.splitlines()]
        assert hits and all(hit["text"] for hit in hits)

    # The sources the killed run stored are known; a second run stores the rest.
    again = run("ingest", sources, "--store", store)
    assert again.exit_code == 0, again.output
    final = run("list", "--store", store)
    assert len(final.stdout.splitlines()) == 200
