"""Tables found from aligned short lines: any shape of table, never two columns of prose."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.pdf.aligned_tables import find_tables, lift_tables, place_tables
from sheaf.domain.pdf.structure import TextBox, TextLine
from tests.property_examples import examples

LINE_HEIGHT = 10.0


def _line(text: str, left: float, top: float, width: float | None = None) -> TextLine:
    right = left + (width if width is not None else 5.0 * len(text))
    return TextLine(text=text, size=9.0, font="Times", bold=False, chars=len(text),
                    bbox=(left, top - LINE_HEIGHT, right, top))


def _box(lines: list[TextLine], page: int = 1) -> TextBox:
    return TextBox(page=page, lines=tuple(lines),
                   bbox=(min(x.bbox[0] for x in lines), min(x.bbox[1] for x in lines),
                         max(x.bbox[2] for x in lines), max(x.bbox[3] for x in lines)))


def _column_boxes(grid: list[list[str]], *, left: float = 72.0, top: float = 600.0,
                  gap: float = 24.0) -> list[TextBox]:
    """A table as layout analysis returns it: each column one box of short lines."""
    boxes = []
    x = left
    for column in range(len(grid[0])):
        texts = [row[column] for row in grid]
        width = 5.0 * max(len(t) for t in texts)
        boxes.append(_box([_line(t, x, top - i * 1.3 * LINE_HEIGHT) for i, t in
                           enumerate(texts)]))
        x += width + gap
    return boxes


_cell = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.%", min_size=1, max_size=9)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(3, 12).flatmap(lambda rows: st.integers(2, 6).flatmap(
    lambda cols: st.lists(st.lists(_cell, min_size=cols, max_size=cols),
                          min_size=rows, max_size=rows))))
def test_any_aligned_grid_is_one_table_of_its_shape(grid: list[list[str]]) -> None:
    tables = find_tables(_column_boxes(grid))
    assert len(tables) == 1
    assert tables[0].rows == tuple(tuple(row) for row in grid)


def test_column_name_is_a_header_cell_not_a_heading() -> None:
    grid = [["Field", "Precision", "Recall", "F1"], ["title", "85.5", "85.5", "85.5"],
            ["authors", "92.1", "92.1", "92.1"], ["venue", "91.7", "89.7", "90.7"]]
    kept, tables = lift_tables(_column_boxes(grid))
    assert kept == []
    assert tables[0].rows[0] == ("Field", "Precision", "Recall", "F1")
    assert tables[0].draft().kind is BlockKind.TABLE


def test_a_wrapped_cell_joins_the_row_above() -> None:
    lines = [_line("Shop", 20, 500), _line("Where", 100, 500),
             _line("Fuel", 20, 487), _line("any station", 100, 487),
             _line("Online", 20, 474), _line("market, auction,", 100, 474),
             _line("coupons", 100, 461), _line("Cafe", 20, 448), _line("all cafes", 100, 448)]
    tables = find_tables([_box([line]) for line in lines])
    assert tables[0].rows == (("Shop", "Where"), ("Fuel", "any station"),
                              ("Online", "market, auction, coupons"), ("Cafe", "all cafes"))


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(3, 30), st.integers(40, 70))
def test_two_columns_of_prose_are_not_a_table(lines_per_column: int, chars: int) -> None:
    sentence = ("the quick brown fox jumps over the lazy dog " * 3)[:chars]
    left = _box([_line(sentence, 72, 700 - i * 12, 220) for i in range(lines_per_column)])
    right = _box([_line(sentence, 310, 700 - i * 12, 220) for i in range(lines_per_column)])
    assert find_tables([left, right]) == []


def test_scattered_labels_are_not_a_table() -> None:
    # A figure's tick labels: many side by side pieces, a mostly empty grid.
    lines = [_line("0", 80, 500), _line("10", 300, 500), _line("x", 150, 480),
             _line("y", 400, 460), _line("20", 80, 440), _line("t", 250, 420),
             _line("30", 350, 420)]
    assert find_tables([_box([line]) for line in lines]) == []


def test_table_is_placed_before_the_first_block_below_it() -> None:
    grid = [["a", "b"], ["1", "2"], ["3", "4"]]
    caption = _box([_line("Table 1: numbers", 72, 520)])
    _, tables = lift_tables([caption, *_column_boxes(grid, top=500)])
    above = BlockDraft(BlockKind.CAPTION, text="Table 1: numbers", pages=(1,),
                       bbox=(72, 510, 300, 520))
    below = BlockDraft(BlockKind.PARAGRAPH, text="After.", pages=(1,), bbox=(72, 300, 300, 400))
    next_page = BlockDraft(BlockKind.PARAGRAPH, text="Next.", pages=(2,), bbox=(72, 700, 300, 720))
    placed = place_tables([above, below, next_page], tables)
    assert [d.kind for d in placed] == [BlockKind.CAPTION, BlockKind.TABLE,
                                        BlockKind.PARAGRAPH, BlockKind.PARAGRAPH]


def test_a_line_joining_one_word_cells_is_split_over_the_columns_it_covers() -> None:
    header = [_line("Field", 72, 600), _line("Precision Recall", 140, 600, 110),
              _line("F1", 270, 600)]
    body = [line for top in (587, 574, 561) for line in (
        _line("title", 72, top), _line("85.5", 140, top), _line("85.4", 200, top),
        _line("85.3", 270, top))]
    tables = find_tables([_box([line]) for line in header + body])
    assert tables[0].rows[0] == ("Field", "Precision", "Recall", "F1")
    assert tables[0].rows[1] == ("title", "85.5", "85.4", "85.3")


def test_a_spanning_header_of_more_words_stays_one_cell() -> None:
    header = [_line("Method", 72, 600), _line("Scores on the test set", 140, 600, 160)]
    body = [line for top in (587, 574, 561) for line in (
        _line("ours", 72, top), _line("85.5", 140, top), _line("85.4", 250, top))]
    tables = find_tables([_box([line]) for line in header + body])
    assert tables[0].rows[0] == ("Method", "Scores on the test set", "")


def test_column_names_on_several_lines_make_one_header_row() -> None:
    lines = [_line("Runs", 72, 600), _line("Estimated QA", 200, 600),
             _line("Recall", 140, 590), _line("Performance", 200, 580)]
    lines += [line for top in (567, 554, 541) for line in (
        _line("run1", 72, top), _line("0.62", 140, top), _line("0.16", 200, top))]
    tables = find_tables([_box([line]) for line in lines])
    assert tables[0].rows == (("Runs", "Recall", "Estimated QA Performance"),
                              ("run1", "0.62", "0.16"), ("run1", "0.62", "0.16"),
                              ("run1", "0.62", "0.16"))


def test_a_table_with_no_full_row_keeps_its_rows() -> None:
    # Every row lacks one cell, so no row can be told from a header's line.
    grid = [["a", "b", "c", "d", ""], ["f", "g", "h", "", "j"], ["k", "l", "", "n", "o"],
            ["p", "", "r", "s", "t"]]
    lines = [_line(text, 72 + 60 * column, 600 - 13 * row)
             for row, cells in enumerate(grid) for column, text in enumerate(cells) if text]
    tables = find_tables([_box([line]) for line in lines])
    assert tables[0].rows == tuple(tuple(row) for row in grid)


def test_a_running_header_above_a_table_is_not_its_first_row() -> None:
    lines = [_line("Conference 23", 72, 640), _line("Authors", 400, 640)]
    lines += [line for top in (600, 587, 574, 561) for line in (
        _line("name", 72, top), _line("1", 140, top), _line("2", 200, top),
        _line("3", 260, top), _line("4", 320, top), _line("5", 400, top))]
    tables = find_tables([_box([line]) for line in lines])
    assert tables[0].rows == (("name", "1", "2", "3", "4", "5"),) * 4
