"""Every new format end to end through the CLI: a directory of generated files ingested,
then `sheaf sections` and `sheaf quote --text` on each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr
from tests.entrypoints.cli_runner import Completed, run, sheaf_on
from tests.office_fixtures import (
    DOCX_SENTENCE,
    EPUB_SENTENCE,
    NOTES_SENTENCE,
    SCANNED_TEXT,
    docx_bytes,
    epub_bytes,
    pptx_bytes,
    scanned_page,
    scanned_pdf,
    xlsx_bytes,
)

pytestmark = pytest.mark.anyio
OCR = TesseractOcr().available()
CSV_TEXT = "city,people\nOslo,700000\nBergen,285000\n"
OCR_SENTENCE = "Each morning he wrote the names of the ships, their cargo and the weather in"
# name: (bytes, expected section headings, an exact sentence, a Markdown table line)
FORMATS: dict[str, tuple[bytes, list[str], str, str | None]] = {
    "report.docx": (docx_bytes(), ["Budget", "Figures"], DOCX_SENTENCE, "| Roads | 120 |"),
    "deck.pptx": (pptx_bytes(), ["Results", "Speaker notes"], NOTES_SENTENCE,
                  "| North | 4% |"),
    "book.xlsx": (xlsx_bytes(), ["Sales", "Staff"], "M2", "| M2 | 10 | steady growth |"),
    "cities.csv": (CSV_TEXT.encode(), ["cities.csv"], "Bergen", "| Bergen | 285000 |"),
    "novel.epub": (epub_bytes(), ["The Keeper", "Calm Seas"], EPUB_SENTENCE,
                   "| 1901 | 312 |"),
}
if OCR:
    FORMATS["scan.png"] = (scanned_page(), [], OCR_SENTENCE, None)
    FORMATS["scan.pdf"] = (scanned_pdf(), [], OCR_SENTENCE, None)
UNSUPPORTED = {"program.bin": (b"\x7fELF\x02\x01\x01" + bytes(64), "an ELF executable"),
               "legacy.doc": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "OLE2"),
               "empty.txt": (b"", "empty"),
               "fake.docx": (b"plain words under an Office name", "(text)"),
               "login.pdf": (b"<!doctype html><title>Sign in</title>", "not_a_pdf (HTML)")}


async def sheaf(store: Path, *args: str | Path) -> Completed:
    return await sheaf_on(store, *args, env={"SHEAF_EMBEDDER": "none"})


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    folder = tmp_path_factory.mktemp("inbox")
    for name, (body, *_) in FORMATS.items():
        (folder / name).write_bytes(body)
    for name, (body, _) in UNSUPPORTED.items():
        (folder / name).write_bytes(body)
    store = tmp_path_factory.mktemp("store") / "kb.duckdb"
    done = run("ingest", folder, "--json", "--store", store, env={"SHEAF_EMBEDDER": "none"})
    return folder, store, done.stdout + "\n" + done.stderr


def test_a_directory_of_every_type_reports_every_file(ingested: tuple[Path, Path, str]
                                                      ) -> None:
    folder, _, output = ingested
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    by_name = {Path(line["source"]).name: line for line in lines}
    assert set(by_name) == set(FORMATS) | set(UNSUPPORTED)
    for name in FORMATS:
        assert by_name[name]["status"] == "new", by_name[name]
    for name, (_, reason) in UNSUPPORTED.items():
        assert by_name[name]["status"] == "skipped" and reason in by_name[name]["reason"]
    assert f", {len(UNSUPPORTED)} skipped" in output
    assert all(f"skipped {folder.resolve() / name}" in output or
               f"skipped {folder / name}" in output for name in UNSUPPORTED)


@pytest.mark.parametrize("name", sorted(FORMATS))
async def test_sections_and_an_exact_quote(ingested: tuple[Path, Path, str], name: str
                                           ) -> None:
    folder, store, _ = ingested
    _, headings, sentence, table_line = FORMATS[name]
    path = str((folder / name).resolve())
    sections = await sheaf(store, "sections", path, "--json")
    assert sections.returncode == 0, sections.stderr
    found = [json.loads(line)["heading"] for line in sections.stdout.splitlines()]
    assert [h for h in found if h in headings] == headings
    quoted = await sheaf(store, "quote", path, "--text", sentence, "--json")
    assert quoted.returncode == 0, quoted.stderr
    quote = json.loads(quoted.stdout)
    assert quote["match"] == "exact" and quote["text"] == sentence
    assert quote["end"] - quote["start"] == len(sentence)
    if table_line:
        shown = await sheaf(store, "quote", path, "--text", table_line, "--json")
        assert json.loads(shown.stdout)["match"] == "exact"


@pytest.mark.skipif(not OCR, reason="Tesseract is not installed (apt-get install tesseract-ocr)")
@pytest.mark.parametrize("make", [scanned_page, scanned_pdf], ids=["png", "pdf"])
async def test_ocr_word_recall_on_a_rendered_page(make: object) -> None:
    from sheaf.domain.ocr.recognised_text import ocr_document

    pages = await TesseractOcr().recognise(make())  # type: ignore[operator]
    recognised = ocr_document(pages).text.split()
    expected = SCANNED_TEXT.split()
    remaining = list(recognised)
    hits = 0
    for word in expected:
        if word in remaining:
            remaining.remove(word)
            hits += 1
    assert hits / len(expected) >= 0.95
    assert pages[0].confidence is not None and pages[0].confidence > 80
