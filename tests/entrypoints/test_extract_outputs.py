"""`extract --output-dir` writes one file per input and never one over another: inputs
whose names would give the same output keep their extension or are numbered, and every
file written is named on stderr."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.entrypoints.cli.local_input import output_names
from tests.entrypoints.cli_runner import run
from tests.office_fixtures import xlsx_bytes
from tests.property_examples import examples


def test_a_workbook_and_a_csv_of_one_name_give_two_outputs(tmp_path: Path) -> None:
    (tmp_path / "A.xlsx").write_bytes(xlsx_bytes())
    (tmp_path / "A.csv").write_text("city,heron count\nLeeds,4\nYork,9\n")
    out = tmp_path / "x"
    done = run("extract", tmp_path / "A.xlsx", tmp_path / "A.csv", "--output-dir", out)
    assert done.exit_code == 0, done.output
    written = sorted(p.name for p in out.iterdir())
    assert written == ["A.csv.md", "A.xlsx.md"]
    assert "York" in (out / "A.csv.md").read_text()
    assert "York" not in (out / "A.xlsx.md").read_text()
    assert f"{tmp_path / 'A.csv'} -> {out / 'A.csv.md'}" in done.stderr.splitlines()


def test_files_of_one_name_in_two_folders_are_numbered(tmp_path: Path) -> None:
    for folder, words in (("a", "first"), ("b", "second")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.md").write_text(f"# X\n\nThe {words} note.\n")
    out = tmp_path / "out"
    done = run("extract", tmp_path / "a" / "x.md", tmp_path / "b" / "x.md",
               "--output-dir", out, "--format", "text")
    assert done.exit_code == 0, done.output
    assert "first" in (out / "x.md.txt").read_text()
    assert "second" in (out / "x.md-2.txt").read_text()


def test_a_lone_input_keeps_its_short_name() -> None:
    assert output_names(["notes/fox.md", "https://example.org/papers/tides"]) == {
        "notes/fox.md": "fox", "https://example.org/papers/tides": "tides"}


NAMES = st.sampled_from(["A", "a", "x", "Report", "n_1"])
SUFFIXES = st.sampled_from([".md", ".csv", ".xlsx", ".html", ".html.gz", ".pdf", ""])
FOLDERS = st.sampled_from(["", "one/", "two/", "https://example.org/"])


@settings(max_examples=examples(200))
@given(st.lists(st.tuples(FOLDERS, NAMES, SUFFIXES).map("".join), max_size=12))
def test_no_two_inputs_share_an_output_name(sources: list[str]) -> None:
    names = output_names(sources)
    assert set(names) == set(sources)
    folded = [name.lower() for name in names.values()]
    assert len(folded) == len(set(folded))
    assert all(name and "/" not in name for name in names.values())
