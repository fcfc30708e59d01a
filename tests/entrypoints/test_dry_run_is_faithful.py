"""`ingest --dry-run` says of every source what a real run then does: files a real run
fails to extract (a corrupt PDF, Word file or EPUB, an image that is no image) fail in the
dry run too, bytes an earlier source of the batch brought are a `duplicate`, and the dry
run writes nothing."""

from __future__ import annotations

import random
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import run
from tests.office_fixtures import epub_bytes


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _broken_epub() -> bytes:
    """An EPUB whose container names a package document it does not hold."""
    good = zipfile.ZipFile(BytesIO(epub_bytes()))
    return _zip({name: good.read(name) for name in good.namelist()
                 if not name.endswith(".opf")})


# Files a real run refuses only once it extracts them: routing alone accepts each.
REFUSED_BY_EXTRACTION = {
    "broken.pdf": b"%PDF-1.4\nnot a PDF body at all\n",
    "broken.docx": _zip({"[Content_Types].xml": b"<Types/>",
                         "word/document.xml": b"<w:document><unclosed"}),
    "broken.epub": _broken_epub(),
    "broken.png": b"\x89PNG\r\n\x1a\n" + b"\x00junk" * 40,
}


def folder(tmp_path: Path, seed: int) -> Path:
    """A mixed folder: good notes (some sharing bytes), and the refused files, in an
    order and with names that vary by `seed`."""
    chance = random.Random(seed)
    notes = tmp_path / f"mixed{seed}"
    notes.mkdir()
    texts = [f"# Note {i}\n\nThe heron number {i} waits by the water.\n"
             for i in range(chance.randint(2, 4))]
    for index in range(chance.randint(3, 7)):
        (notes / f"n{chance.randrange(10**6)}_{index}.md").write_text(chance.choice(texts))
    for name in chance.sample(sorted(REFUSED_BY_EXTRACTION), chance.randint(1, 4)):
        (notes / name).write_bytes(REFUSED_BY_EXTRACTION[name])
    return notes


def statuses(stderr: str) -> dict[str, str]:
    found = {}
    for line in stderr.splitlines():
        if line.startswith("["):
            _, status, source = line.split(None, 3)[:3]
            found[Path(source).name] = status
    return found


def summary(stderr: str) -> str:
    return next(line for line in stderr.splitlines() if line.startswith("summary:"))


@pytest.mark.parametrize("seed", range(3))
def test_a_dry_run_reports_what_the_real_run_then_does(tmp_path: Path, seed: int) -> None:
    notes = folder(tmp_path, seed)
    store = tmp_path / "kb.duckdb"
    dry = run("ingest", notes, "--dry-run", "--concurrency", "1", "--store", store)
    assert not store.exists() and not (tmp_path / "kb.duckdb.blobs").exists()
    real = run("ingest", notes, "--concurrency", "1", "--store", store)
    assert real.exit_code == dry.exit_code == 1  # each has the refused files
    # Which of two files with the same bytes is `new` depends on the order they finish
    # in; how many of each status does not.
    assert summary(dry.stderr) == summary(real.stderr)
    failed = {n for n, s in statuses(real.stderr).items() if s == "failed"}
    assert failed == {n for n, s in statuses(dry.stderr).items() if s == "failed"}
    assert failed == {p.name for p in notes.iterdir() if p.name in REFUSED_BY_EXTRACTION}


def test_a_dry_run_on_an_existing_store_sees_what_it_holds(tmp_path: Path) -> None:
    notes = folder(tmp_path, 7)
    store = tmp_path / "kb.duckdb"
    run("ingest", notes, "--store", store)
    (notes / "fresh.md").write_text("# Fresh\n\nA kingfisher dives.\n")
    dry = run("ingest", notes, "--dry-run", "--store", store)
    real = run("ingest", notes, "--store", store)
    assert summary(dry.stderr) == summary(real.stderr)
    assert "1 new" in summary(real.stderr)
