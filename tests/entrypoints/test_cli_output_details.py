"""What the CLI prints, read as a newcomer reads it: every hit and quote with its source
on stdout, no `None` for a missing title, a failure's kind said once, progress and
failure lines apart, `sheaf list` in columns, and --json wherever a command answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest

from sheaf.entrypoints.cli import ingest_commands
from sheaf.entrypoints.cli.cli import sheaf
from tests.entrypoints.cli_runner import run
from tests.entrypoints.test_cli_reference import commands, flags
from tests.office_fixtures import xlsx_bytes

NOTE = "Stanley Cups\n\nSwimming in the lake is cold in spring. The herons leave in autumn.\n"


@pytest.fixture
def untitled(tmp_path: Path) -> tuple[Path, Path]:
    """A store holding one untitled text file."""
    note = tmp_path / "cups.txt"
    note.write_text(NOTE)
    store = tmp_path / "kb.duckdb"
    assert run("ingest", note, "--store", store).exit_code == 0
    return note, store


def test_a_plain_search_hit_names_its_file(untitled: tuple[Path, Path]) -> None:
    note, store = untitled
    found = run("search", "swimming lake", "--store", store)
    assert found.exit_code == 0, found.output
    first, text, source = found.stdout.splitlines()[:3]
    # Untitled, so titled after its file (issue 31), never its document id.
    assert re.match(r" 1\.\s+[\d.]+  cups  \[", first), first
    assert "Swimming in the lake" in text
    assert source == f"    -- {note.as_uri()}"


def test_a_quote_keeps_its_citation_on_stdout(untitled: tuple[Path, Path]) -> None:
    note, store = untitled
    quoted = run("quote", note, "--text", "Swimming in the lake is cold", "--store", store)
    assert quoted.exit_code == 0, quoted.output
    passage, citation = quoted.stdout.splitlines()
    assert passage == "Swimming in the lake is cold"
    assert citation.startswith(f"-- cups ({note.as_uri()}), ")
    assert quoted.stderr == ""


def test_show_says_untitled_and_where_the_document_is(untitled: tuple[Path, Path]) -> None:
    note, store = untitled
    shown = run("show", note, "--store", store)
    assert shown.exit_code == 0, shown.output
    assert "None" not in shown.stdout
    lines = dict(line.split(None, 1) for line in shown.stdout.splitlines())
    assert lines["title"] == "cups"  # the file's name, as the notes say (issue 31)
    assert lines["location"] == note.as_uri()


def test_a_failure_names_its_kind_once(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "broken.pdf").write_bytes(b"%PDF-1.4\nnot a PDF\n")
    done = run("ingest", tmp_path / "in", "--store", tmp_path / "kb.duckdb")
    assert done.exit_code == 1
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("  failed ")]
    assert line.startswith(f"  failed {tmp_path / 'in' / 'broken.pdf'}: corrupt: ")
    assert line.count("corrupt:") == 1


def test_under_a_progress_bar_no_line_is_glued_to_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import click._termui_impl

    monkeypatch.setattr(click._termui_impl, "isatty", lambda _: True)
    monkeypatch.setattr(ingest_commands, "interactive", lambda as_json: not as_json)
    folder = tmp_path / "in"
    folder.mkdir()
    for index in range(4):
        (folder / f"n{index}.md").write_text(f"# Note {index}\n\nHeron number {index}.\n")
        (folder / f"broken{index}.pdf").write_bytes(b"%PDF-1.4\nnot a PDF " + bytes([65 + index]))
    done = run("ingest", folder, "--concurrency", "1", "--store", tmp_path / "kb.duckdb")
    assert done.exit_code == 1
    # A terminal shows what follows the last carriage return or erase of each line.
    shown = [re.split(r"\r|\x1b\[2K", line)[-1] for line in done.stderr.split("\n")]
    failures = [line for line in shown if "failed" in line and "broken" in line
                and not line.startswith("  failed")]
    assert len(failures) == 4
    assert all(line.startswith("[") for line in failures), failures
    assert "ingesting" in done.stderr


def test_list_lines_up_its_columns(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "sheet.xlsx").write_bytes(xlsx_bytes())
    (tmp_path / "in" / "page.html").write_text(
        "<html><head><title>A page</title></head><body><p>Herons.</p></body></html>")
    (tmp_path / "in" / "note.md").write_text("# A note with a long title here\n\nx y z.\n")
    store = tmp_path / "kb.duckdb"
    assert run("ingest", tmp_path / "in", "--store", store).exit_code == 0
    listed = run("list", "--store", store)
    lines = listed.stdout.splitlines()
    records = [json.loads(line) for line in run("list", "--json", "--store", store)
               .stdout.splitlines()]
    assert len(lines) == 3
    assert {r["content"] for r in records} >= {"spreadsheet", "html"}
    for column in ("content", "title"):
        starts = set()
        for line, record in zip(lines, records, strict=True):
            after = 22 if column == "content" else \
                line.index(record["content"], 22) + len(record["content"])
            starts.add(line.index(record[column] or "(untitled)", after))
        assert len(starts) == 1, (column, lines)


ANSWERS_WITHOUT_JSON = {"serve", "mcp", "worker", "demo", "model install"}
"""They serve, run or install: what they print is a log, not an answer."""


def test_every_command_that_answers_has_json() -> None:
    missing = {name for name, command in commands(sheaf)
               if "--json" not in flags(command) and "--format" not in flags(command)
               and name not in ANSWERS_WITHOUT_JSON}
    assert missing == set()


def test_remove_and_reindex_answer_in_json(untitled: tuple[Path, Path]) -> None:
    note, store = untitled
    reindexed = run("reindex", "--json", "--store", store)
    assert reindexed.exit_code == 0, reindexed.output
    assert json.loads(reindexed.stdout) == {"reindexed": 1, "space": "default",
                                            "chunks": True, "embeddings": False,
                                            "enrich": None}
    removed = run("remove", note, "--json", "--store", store)
    assert removed.exit_code == 0, removed.output
    answer = json.loads(removed.stdout)
    assert answer["removed"].startswith("doc_") and answer["title"] == "cups"


def test_the_commands_are_click_commands() -> None:
    assert all(isinstance(c, click.Command) for _, c in commands(sheaf))


@pytest.mark.parametrize("name", ["notes.txt", "notes.md"])
def test_the_opening_of_a_plain_file_is_not_labelled_abstract(tmp_path: Path,
                                                               name: str) -> None:
    opening = " ".join(f"Heron {n} waits by the cold lake in spring." for n in range(12))
    note = tmp_path / name
    note.write_text(f"{opening}\n\n# Results\n\nHerons nest in the reeds.\n")
    store = tmp_path / "kb.duckdb"
    assert run("ingest", note, "--store", store).exit_code == 0
    listed = run("sections", note, "--json", "--store", store)
    labels = [json.loads(line)["label"] for line in listed.stdout.splitlines()]
    assert "abstract" not in labels
    found = run("search", "heron cold lake", "--store", store)
    assert "[Abstract]" not in found.stdout and "abstract" not in found.stdout.lower()
