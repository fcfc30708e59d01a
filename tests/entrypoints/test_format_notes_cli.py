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
