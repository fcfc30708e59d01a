"""A file whose name is not UTF-8 is ingested, stored and listed under an escaped form of
its name, the same each time (issue 30: it failed `internal` with a traceback)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sheaf import Knowledge
from sheaf.domain.text.undecodable_names import storable_name

pytestmark = pytest.mark.anyio


def test_a_storable_name_escapes_only_what_is_not_text() -> None:
    assert storable_name("plain résumé.txt") == "plain résumé.txt"
    assert storable_name(os.fsdecode(b"bad\xffname.txt")) == "bad\\xffname.txt"
    assert storable_name("lone \ud800 surrogate") == "lone \\ud800 surrogate"
    storable_name(os.fsdecode(b"\xc3(")).encode("utf-8")  # never raises once escaped


async def test_a_file_name_that_is_not_utf8_is_ingested_and_listed(tmp_path: Path) -> None:
    name = os.fsdecode(b"report-\xff\xfe.txt")
    path = tmp_path / name
    path.write_text("The report counts every boat in the harbour.")
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
        first = await kb.ingest(str(path))
        assert first.status.value == "new", first.message
        again = await kb.ingest(str(path))
        assert again.status.value == "unchanged"
        [record] = await kb.documents()
        assert record.location.file_name == "report-\\xff\\xfe.txt"
        assert (await kb.search("boat harbour"))
