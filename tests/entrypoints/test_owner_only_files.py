"""A store is its user's alone (issue 30): the DuckDB file, its write-ahead log, blobs,
staged artifacts, uploads and the holder file are created 0600 in folders made 0700,
whatever the umask; the tests run under umask 000, where every default is world
readable and writable."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sheaf import Knowledge

pytestmark = pytest.mark.anyio
NOTE = "# Field notes\n\nFoxes wait for people to sleep.\n"


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def modes(root: Path, *, since: Path) -> dict[str, int]:
    """The permission bits of everything under `root` that sheaf made."""
    return {str(p.relative_to(since)): stat.S_IMODE(p.lstat().st_mode)
            for p in [root, *root.rglob("*")] if p.exists() and p != since}


def assert_owner_only(found: dict[str, int]) -> None:
    loose = {name: oct(mode) for name, mode in found.items() if mode & 0o077}
    assert not loose, loose


async def test_the_library_creates_the_store_for_its_owner(tmp_path: Path,
                                                           open_umask: None) -> None:
    note = tmp_path / "notes.md"
    note.write_text(NOTE)
    large = tmp_path / "large.md"  # past what the store holds itself: its blobs are files
    large.write_text("# Large\n\n" + "The tide rose over the flats. " * 3000)
    store = tmp_path / "new" / "folder" / "kb.duckdb"
    async with Knowledge.open(store, embedder="hashing") as kb:
        kb._services.ingestion.stage_after = 0.0  # its staged artifacts are made too
        await kb.ingest(str(note))
        await kb.ingest(str(large))
        made = modes(tmp_path / "new", since=tmp_path)
    assert_owner_only(made)
    assert made["new/folder/kb.duckdb"] == 0o600
    assert made["new/folder/kb.blobs"] == 0o700
    assert any(name.startswith("new/folder/kb.blobs/raw/") and mode == 0o600
               for name, mode in made.items())
    assert any(name.endswith("meta.json") for name in made)


def test_a_command_under_any_umask_leaves_nothing_others_can_read(tmp_path: Path) -> None:
    note = tmp_path / "notes.md"
    note.write_text(NOTE)
    store = tmp_path / "kb.duckdb"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "SHEAF_STORE": str(store)}
    done = subprocess.run([sys.executable, "-m", "sheaf.entrypoints.cli.cli", "ingest",
                           str(note)], env=env, capture_output=True, text=True,
                          timeout=120, check=False, preexec_fn=lambda: os.umask(0))
    assert done.returncode == 0, done.stderr
    made = {name: mode for name, mode in modes(tmp_path, since=tmp_path).items()
            if name != "notes.md"}
    assert "kb.duckdb" in made
    assert_owner_only(made)
