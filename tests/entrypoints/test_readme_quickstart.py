"""The README's quickstart, run as it is written: each `$ sheaf ...` line of its console
block is run in a checkout-like folder holding the bundled samples, and what it prints
(stdout and stderr, as a terminal shows them) must be the lines written under it,
citations included, character for character.

Only what cannot be the same on every machine is read loosely: the checkout's folder
(written as the README's), document ids (derived from the files' paths: the README's
ids must stand for the printed ones one for one), and two orders: that in which
concurrent ingests finish (`[n/N]` lines) and `sheaf list`'s, by id (lines that start
with an id), each compared as a set."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from sheaf.entrypoints.api.settings import ENVIRONMENT
from tests.entrypoints.cli_runner import SAMPLES, run

README = Path(__file__).resolve().parents[2] / "README.md"
DOCUMENT_ID = re.compile(r"\bdoc_[0-9a-f]{16}\b")
PROGRESS = re.compile(r"^\[\d+/\d+\] ")


def quickstart() -> tuple[str, list[tuple[list[str], list[str]]]]:
    """The checkout folder the README names, and its commands with their output."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quickstart\n"):]
    section = section[:section.index("\n## ")]
    root = re.search(r"From a checkout \(here `([^`]+)`\)", section)
    assert root, "the quickstart names no checkout folder"
    block = re.search(r"```console\n(.*?)```", section, re.S)
    assert block, "the quickstart has no console block"
    steps: list[tuple[list[str], list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("$ "):
            steps.append((shlex.split(line[2:]), []))
        else:
            assert steps, "output before the first command"
            steps[-1][1].append(line.rstrip())
    return root.group(1), steps


def compared(lines: list[str]) -> tuple[list[str], list[str]]:
    """Lines in order, and apart (sorted) those whose order differs by machine: progress
    lines without their counter, and listing lines (by id)."""
    loose = [PROGRESS.sub("", line) for line in lines
             if PROGRESS.match(line) or DOCUMENT_ID.match(line)]
    return [line for line in lines if not PROGRESS.match(line)
            and not DOCUMENT_ID.match(line)], sorted(loose)


def same_ids(printed: list[str], written: list[str], renamed: dict[str, str]) -> None:
    """Pair each printed id with the README's: lines that are equal but for their ids
    name the same documents, in the same places."""
    def shape(line: str) -> str:
        return DOCUMENT_ID.sub("doc_ID", line)

    for line in printed:
        if not DOCUMENT_ID.search(line):
            continue
        twins = [w for w in written if shape(w) == shape(line)]
        assert twins, f"no README line like {line!r}"
        for mine, theirs in zip(DOCUMENT_ID.findall(line), DOCUMENT_ID.findall(twins[0]),
                                strict=True):
            assert renamed.setdefault(mine, theirs) == theirs, (line, theirs)
    assert len(set(renamed.values())) == len(renamed)  # one for one


def test_the_quickstart_prints_what_the_readme_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, steps = quickstart()
    assert [argv[:2] for argv, _ in steps][:4] == [
        ["sheaf", "ingest"], ["sheaf", "list"], ["sheaf", "search"], ["sheaf", "quote"]]
    checkout = tmp_path / "checkout"
    shutil.copytree(SAMPLES, checkout / "entrypoints" / "samples")
    monkeypatch.chdir(checkout)
    # Nothing of the machine's own settings: the README's defaults.
    unset: dict[str, str | None] = dict.fromkeys(ENVIRONMENT)
    unset["HOME"] = str(tmp_path)
    renamed: dict[str, str] = {}  # printed id -> the README's id
    for argv, expected in steps:
        assert argv[0] == "sheaf"
        done = run(*argv[1:], env=unset)  # type: ignore[arg-type]
        assert done.exit_code == 0, (argv, done.output)
        printed = [line.rstrip().replace(str(checkout), root)
                   for line in done.output.splitlines()]
        same_ids(printed, expected, renamed)
        shown = [DOCUMENT_ID.sub(lambda m: renamed[m.group(0)], line) for line in printed]
        assert compared(shown) == compared(expected), argv
        # A citation is part of the answer: it goes where the answer goes (`> file`).
        cited = [line for line in done.stdout.splitlines() if line.lstrip().startswith("-- ")]
        assert len(cited) == sum(line.lstrip().startswith("-- ") for line in expected), argv


def test_every_citation_it_prints_names_a_bundled_file() -> None:
    root, steps = quickstart()
    cited = {line for _, output in steps for line in output if "-- " in line}
    assert len(cited) >= 3  # search hits, a PDF quote and an HTML quote
    for line in cited:
        found = re.search(r"file://(\S+?)\)?(?:,|$)", line)
        assert found, line
        path = found.group(1)
        assert path.startswith(f"{root}/entrypoints/samples/")
        assert (SAMPLES / Path(path).name).is_file()
