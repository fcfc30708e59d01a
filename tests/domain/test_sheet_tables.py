"""Sheets and delimited text as sections of Markdown tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.document.document import BlockKind
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.office.sheet_tables import SheetLimits, delimited_document, sheet_blocks

cell = st.text(alphabet="abcXYZ019 |-", max_size=6)


@given(st.lists(st.lists(cell, min_size=1, max_size=4), min_size=1, max_size=40),
       st.integers(min_value=1, max_value=7))
def test_split_tables_keep_every_row_once_under_the_repeated_header(
        rows: list[list[str]], per_table: int) -> None:
    drafts = sheet_blocks("S", rows, limits=SheetLimits(rows_per_table=per_table))
    assert drafts[0].kind is BlockKind.HEADING and drafts[0].text == "S"
    tables = [d for d in drafts if d.kind is BlockKind.TABLE]
    kept = [tuple(c.strip() for c in r) for r in rows if any(c.strip() for c in r)]
    if not kept:
        assert not tables
        return
    headers = {t.rows[0] for t in tables}
    assert len(headers) == 1
    body = [row for t in tables for row in t.rows[1:]]
    assert len(body) == len(kept) - 1
    assert all(len(t.rows) - 1 <= per_table for t in tables)
    width = len(next(iter(headers)))
    assert all(len(r) == width for t in tables for r in t.rows)


def test_row_range_headings_count_rows_as_the_sheet_does() -> None:
    rows = [["h"], *[[str(i)] for i in range(5)]]
    drafts = sheet_blocks("Data", rows, limits=SheetLimits(rows_per_table=2))
    assert [d.text for d in drafts if d.kind is BlockKind.HEADING] == [
        "Data", "Data, rows 2-3", "Data, rows 4-5", "Data, rows 6-6"]


def test_a_sheet_past_the_cell_limit_is_refused() -> None:
    with pytest.raises(SheafError) as caught:
        sheet_blocks("Big", [["x"] * 10] * 10, limits=SheetLimits(max_cells=99))
    assert caught.value.kind is ErrorKind.TOO_LARGE and "Big" in caught.value.message


@pytest.mark.parametrize(("text", "delimiter"), [
    ("a,b\n1,2\n", None), ("a;b\n1;2\n", None), ("a\tb\n1\t2\n", "\t"), ("a|b\n1|2\n", None)])
def test_delimiters(text: str, delimiter: str | None) -> None:
    document = delimited_document(text, "t.csv", delimiter=delimiter)
    assert "| a | b |\n|---|---|\n| 1 | 2 |" in document.text
    assert document.title == "t"
    assert document.headings()[0].draft.text == "t.csv"


def test_quoted_cells_with_newlines_and_pipes_stay_one_cell() -> None:
    document = delimited_document('name,note\nx,"two\nlines | here"\n', "q.csv")
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.draft.rows[1] == ("x", "two\nlines | here")
    assert "two lines \\| here" in document.text


def test_empty_and_broken_delimited_text() -> None:
    with pytest.raises(SheafError) as empty:
        delimited_document(" \n\n", "e.csv")
    assert empty.value.kind is ErrorKind.EMPTY
    with pytest.raises(SheafError) as large:
        delimited_document("a,b\n" * 100, "l.csv", limits=SheetLimits(max_cells=50))
    assert large.value.kind is ErrorKind.TOO_LARGE
