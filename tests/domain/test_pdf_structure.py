"""The structure pass over positioned lines: rows cut in pieces by justified spacing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.pdf.structure import TextLine, rejoin_split_rows
from tests.property_examples import examples

LEFT, RIGHT, SIZE = 72.0, 300.0, 9.0


def _line(text: str, x0: float, x1: float, top: float) -> TextLine:
    return TextLine(text=text, size=SIZE, font="Times-Roman", bold=False, chars=len(text),
                    bbox=(x0, top - SIZE, x1, top))


def _paragraph(rows: int, split_row: int, cut: float, right_first: bool) -> list[TextLine]:
    lines: list[TextLine] = []
    for r in range(rows):
        top = 700.0 - 11 * r
        if r != split_row:
            lines.append(_line(f"words of row {r} run across the column", LEFT, RIGHT, top))
            continue
        pieces = [_line(f"start{r} of row", LEFT, cut, top),
                  _line(f"end{r} of row.", cut + 5 * SIZE, RIGHT, top)]
        lines += reversed(pieces) if right_first else pieces
    return lines


@settings(max_examples=examples(60), deadline=None)
@given(rows=st.integers(3, 12), data=st.data(), cut=st.floats(100, 200),
       right_first=st.booleans())
def test_a_justified_row_cut_in_two_reads_as_one_line_left_to_right(
        rows: int, data: st.DataObject, cut: float, right_first: bool) -> None:
    split_row = data.draw(st.integers(0, rows - 1))
    lines = _paragraph(rows, split_row, cut, right_first)
    joined = rejoin_split_rows(lines)
    assert len(joined) == rows
    assert joined[split_row].text == f"start{split_row} of row end{split_row} of row."
    assert joined[split_row].bbox[0] == LEFT and joined[split_row].bbox[2] == RIGHT
    assert [line.text for i, line in enumerate(joined) if i != split_row] == [
        line.text for line in lines if line.bbox[2] - line.bbox[0] == RIGHT - LEFT]


def test_table_cells_and_pieces_short_of_the_edges_stay_apart() -> None:
    # Rows of cells side by side: most rows are split, so the box is a table.
    cells = [_line(text, x0, x0 + 40, 700.0 - 11 * r) for r in range(4)
             for text, x0 in ((f"name{r}", LEFT), (f"{r}.5", 200.0))]
    assert rejoin_split_rows(cells) == cells
    # A piece standing apart from the right edge (a label beside a paragraph's last
    # line) is not a justified line's end.
    lines = _paragraph(5, 4, 120.0, False)
    lines[-1] = _line("end4 of row.", 200.0, 240.0, lines[-1].bbox[3])
    assert rejoin_split_rows(lines) == lines
