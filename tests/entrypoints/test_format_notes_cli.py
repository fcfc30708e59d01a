"""Through the CLI: a folder of new formats ingests what sheaf reads and skips (not
fails) what it does not, and what each document left out is in `extract --format json`
and `show --diagnostics`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import run, sheaf_on
from tests.office_fixtures import chart_pptx_bytes, eml_bytes, odt_bytes, rtf_bytes

pytestmark = pytest.mark.anyio


def test_extract_json_lists_what_was_left_out(tmp_path: Path) -> None:
    deck = tmp_path / "ducks.pptx"
    deck.write_bytes(chart_pptx_bytes())
    done = run("extract", deck, "--format", "json")
    assert done.exit_code == 0, done.output
    extracted = json.loads(done.stdout)
    assert "left out: 1 image without alt text or caption" in extracted["notes"]
    assert "Freshwater" in extracted["text"]


async def test_a_folder_ingest_skips_unsupported_formats_and_keeps_the_notes(
        tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "orchard.odt").write_bytes(odt_bytes())
    (folder / "mill.rtf").write_bytes(rtf_bytes())
    (folder / "timetable.eml").write_bytes(eml_bytes())
    (folder / "catalog.xml").write_bytes(b'<?xml version="1.0"?><catalog><b/></catalog>')
    (folder / "old.msg").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504
                                     + "__substg1.0_0037001F".encode("utf-16-le"))
    store = tmp_path / "kb.duckdb"
    done = await sheaf_on(store, "ingest", folder, "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    statuses = {Path(r["source"]).name: r["status"] for r in lines}
    assert statuses == {"catalog.xml": "skipped", "old.msg": "skipped",
                        "orchard.odt": "new", "mill.rtf": "new", "timetable.eml": "new"}
    assert b"3 new" in done.stderr and b"0 failed" in done.stderr and b"2 skipped" in done.stderr
    odt = str((folder / "orchard.odt").resolve())
    diagnostics = (await sheaf_on(store, "show", odt, "--diagnostics")).stdout.decode()
    assert ("left out: 1 image without alt text or caption, 1 embedded object (OLE)"
            in diagnostics)
    markdown = (await sheaf_on(store, "show", str((folder / "mill.rtf").resolve()),
                               "--markdown")).stdout.decode()
    assert "Mill History" in markdown and "\\par" not in markdown



def _page_and_pdf(folder: Path) -> list[tuple[Path, str]]:
    """A web page and a PDF that hold what their text does not, with the note each gets."""
    from tests.pdf_writer import with_pdf_extras, write_pdf

    page = folder / "harbour.html"
    prose = "".join(f"<p>Paragraph {i} of the story, with enough words, commas, and detail "
                    "to read as prose that a reader came for.</p>" for i in range(6))
    page.write_text(f"<html><head><title>Harbour</title></head><body><article>{prose}"
                    "<img src='quay.jpg'><iframe src='https://v.example/1'></iframe>"
                    "</article></body></html>")
    survey = folder / "survey.pdf"
    survey.write_bytes(with_pdf_extras(
        write_pdf([("h1", "Harbour Survey"), ("p", "Every mooring on the east quay.")]),
        pictures=2, annotations=["/Text"], fields=1))
    return [(page, "left out: 1 image without alt text or caption, "
                   "1 embedded frame or object (iframe, object, embed)"),
            (survey, "left out: 2 pictures (their pixels not read as text), 1 annotation "
                     "(note, highlight, stamp or shape), 1 form field (its value not read)")]


def test_web_pages_and_pdfs_name_what_they_left_out_in_extract_json(tmp_path: Path) -> None:
    for path, line in _page_and_pdf(tmp_path):
        done = run("extract", path, "--format", "json")
        assert done.exit_code == 0, done.output
        assert line in json.loads(done.stdout)["notes"]


async def test_web_pages_and_pdfs_name_what_they_left_out_in_diagnostics(
        tmp_path: Path) -> None:
    cases = _page_and_pdf(tmp_path)
    store = tmp_path / "kb.duckdb"
    assert (await sheaf_on(store, "ingest", *(p for p, _ in cases))).returncode == 0
    for path, line in cases:
        shown = await sheaf_on(store, "show", str(path.resolve()), "--diagnostics")
        assert line in shown.stdout.decode()
