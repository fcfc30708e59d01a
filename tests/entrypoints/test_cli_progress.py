"""Progress bars (count, rate, ETA) on a terminal; none with --json or off a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.entrypoints.cli import cli_session, ingest_commands, search_commands
from tests.entrypoints.cli_runner import run


def notes(folder: Path, count: int) -> Path:
    folder.mkdir()
    for index in range(count):
        (folder / f"n{index}.md").write_text(f"# Note {index}\n\nWords number{index}.\n")
    return folder


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """stderr is a terminal, as click's progress bar judges it."""
    import click._termui_impl

    monkeypatch.setattr(click._termui_impl, "isatty", lambda _: True)
    for module in (ingest_commands, search_commands):
        monkeypatch.setattr(module, "interactive", lambda as_json: not as_json)


def test_ingest_and_reindex_show_count_rate_and_eta_on_a_terminal(
        tmp_path: Path, terminal: None) -> None:
    store = tmp_path / "kb.duckdb"
    done = run("ingest", notes(tmp_path / "notes", 3), "--store", store)
    assert done.exit_code == 0, done.output
    assert "ingesting" in done.stderr and "3/3" in done.stderr and "/s" in done.stderr
    assert "[1/3]" not in done.stderr  # under a bar, only what needs reading is printed
    again = run("reindex", "--store", store)
    assert "reindexing" in again.stderr and "3/3" in again.stderr


def test_json_output_and_logs_have_no_bar(tmp_path: Path, terminal: None) -> None:
    store = tmp_path / "kb.duckdb"
    done = run("ingest", notes(tmp_path / "notes", 2), "--store", store, "--json")
    assert done.exit_code == 0 and "ingesting" not in done.stderr


def test_off_a_terminal_every_source_is_one_line(tmp_path: Path) -> None:
    assert not cli_session.interactive(False)  # the runner's stderr is no terminal
    done = run("ingest", notes(tmp_path / "notes", 2), "--store", tmp_path / "kb.duckdb")
    assert "ingesting" not in done.stderr
    assert "[1/2] new" in done.stderr and "[2/2] new" in done.stderr
