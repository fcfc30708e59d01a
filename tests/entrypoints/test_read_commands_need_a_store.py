"""A command that only reads never creates a store: pointed at a file that is not there
(a mistyped --store, SHEAF_STORE or a fresh machine's default), it says
`store_not_found` and where it looked, exits 1 and leaves nothing on disk. A dry run
reports against an empty store and writes none either.

Every command of the CLI is in exactly one of the sets below, so a new command must say
which it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.entrypoints.cli.cli import sheaf
from tests.entrypoints.cli_runner import run
from tests.entrypoints.test_cli_reference import commands

# command: the arguments that reach its work
READING = {
    "list": [],
    "show": ["doc_x"],
    "sections": ["doc_x"],
    "chunks": ["doc_x"],
    "quote": ["doc_x", "--sentence", "1"],
    "search": ["seagrass"],
    "status": [],
    "space": ["papers"],  # shown, not set
    "reconcile": ["--batch", "{batch}"],
    "remove": ["doc_x"],
    "reindex": [],
    "compact": [],
    "verify": ["seagrass grew with the tides"],
    "repair": [],
}
CREATING = {"ingest", "serve", "mcp", "worker"}
"""They store what they are given (or serve others who do): a new store is their job."""
QUEUE_ONLY = {"batch"}  # reads the queue's tables, never the DuckDB file
STORELESS = {"resolve", "extract", "eval retrieval", "demo", "version", "model install"}


def test_every_command_is_in_one_set() -> None:
    named = [*READING, *CREATING, *QUEUE_ONLY, *STORELESS]
    assert sorted(named) == sorted(name for name, _ in commands(sheaf))


def arguments(name: str, tmp_path: Path) -> list[str]:
    batch = tmp_path / "batch.txt"
    batch.write_text("https://example.org/a\n")
    return [*name.split(), *(a.format(batch=batch) for a in READING[name])]


@pytest.mark.parametrize("name", sorted(READING))
def test_a_read_command_on_a_missing_store_names_it_and_creates_nothing(
        name: str, tmp_path: Path) -> None:
    store = tmp_path / "mistyped" / "kb.duckdb"
    done = run(*arguments(name, tmp_path), "--store", store)
    assert done.exit_code == 1, done.output
    assert done.stderr == (f"sheaf: error: store_not_found: no store at {store} (from "
                           "--store); check --store or SHEAF_STORE, or create one with "
                           "`sheaf ingest`\n")
    assert not (tmp_path / "mistyped").exists()


@pytest.mark.parametrize("name", ["search", "status", "list"])
def test_the_variable_or_the_default_place_is_named(name: str, tmp_path: Path) -> None:
    store = tmp_path / "nowhere.duckdb"
    by_variable = run(*arguments(name, tmp_path), env={"SHEAF_STORE": str(store)})
    assert f"no store at {store} (from SHEAF_STORE)" in by_variable.stderr
    home = tmp_path / "data"
    by_default = run(*arguments(name, tmp_path),
                     env={"SHEAF_STORE": "", "XDG_DATA_HOME": str(home)})
    assert (f"no store at {home / 'sheaf' / 'sheaf.duckdb'} (from the default location)"
            in by_default.stderr)
    assert by_default.exit_code == 1
    assert not store.exists() and not home.exists()


def test_setting_a_policy_creates_the_store_showing_one_does_not(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    assert run("space", "papers", "--store", store).exit_code == 1
    assert not store.exists()
    assert run("space", "papers", "--disable", "--store", store).exit_code == 0
    shown = run("space", "papers", "--store", store)
    assert shown.exit_code == 0 and "False" in shown.stdout


def test_a_dry_run_writes_no_store(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "fox.md").write_text("# Fox\n\nFoxes wait for the night.\n")
    store = tmp_path / "kb" / "kb.duckdb"
    dry = run("ingest", tmp_path / "notes", "--dry-run", "--store", store)
    assert dry.exit_code == 0, dry.output
    assert "[1/1] new" in dry.stderr
    assert not (tmp_path / "kb").exists()
