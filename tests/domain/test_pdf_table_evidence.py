"""A grid of text is a table only with a table's evidence: a caption, figures, rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.pdf.aligned_tables import lift_tables
from sheaf.domain.pdf.structure import TextBox, TextLine
from sheaf.domain.pdf.table_evidence import is_numeric_grid
from tests.property_examples import examples

LINE_HEIGHT = 10.0
ROW_STEP = 13.0


def _line(text: str, left: float, top: float) -> TextLine:
    return TextLine(text=text, size=9.0, font="Times", bold=False, chars=len(text),
                    bbox=(left, top - LINE_HEIGHT, left + 5.0 * len(text), top))


def _box(lines: list[TextLine]) -> TextBox:
    return TextBox(page=1, lines=tuple(lines),
                   bbox=(min(x.bbox[0] for x in lines), min(x.bbox[1] for x in lines),
                         max(x.bbox[2] for x in lines), max(x.bbox[3] for x in lines)))


def _grid_boxes(grid: list[list[str]], *, left: float = 72.0, top: float = 600.0
                ) -> list[TextBox]:
    """Each column one box of short lines, as layout analysis gives a grid back."""
    boxes = []
    x = left
    for column in range(len(grid[0])):
        texts = [row[column] for row in grid]
        boxes.append(_box([_line(t, x, top - i * ROW_STEP) for i, t in enumerate(texts)]))
        x += 5.0 * max(len(t) for t in texts) + 24.0
    return boxes


def _bottom(grid: list[list[str]], top: float) -> float:
    return top - (len(grid) - 1) * ROW_STEP - LINE_HEIGHT


_NAME = st.sampled_from(["Ann Lee", "Bo Chen", "Department of Physics", "University of Oslo",
                         "ann@uio.no", "Centre for Study", "Oslo, Norway", "Maria Garcia",
                         "sampler", "build word", "output to", "file", "Institute"])
_TEXT_GRID = st.integers(3, 5).flatmap(lambda rows: st.integers(2, 5).flatmap(
    lambda cols: st.lists(st.lists(_NAME, min_size=cols, max_size=cols),
                          min_size=rows, max_size=rows)))
_CAPTION = st.tuples(st.sampled_from(["Table", "TABLE", "Tab."]),
                     st.one_of(st.integers(1, 30).map(str),
                               st.sampled_from(["I", "II", "IV", "XII"])),
                     st.sampled_from([": Results of the study", ". Counts", ""])).map(
    lambda parts: f"{parts[0]} {parts[1]}{parts[2]}")


@settings(max_examples=examples(60), deadline=None)
@given(grid=_TEXT_GRID)
def test_names_and_labels_in_rows_and_columns_are_not_a_table(grid: list[list[str]]) -> None:
    # An author and affiliation block, a diagram's labels: aligned, but no table.
    kept, tables = lift_tables(_grid_boxes(grid))
    assert tables == []
    assert sum(len(box.lines) for box in kept) == sum(len(row) for row in grid)


@settings(max_examples=examples(60), deadline=None)
@given(grid=_TEXT_GRID, caption=_CAPTION, above=st.booleans())
def test_the_same_grid_under_or_over_a_table_caption_is_a_table(
        grid: list[list[str]], caption: str, above: bool) -> None:
    top = 600.0
    at = top + 20 if above else _bottom(grid, top) - 12
    boxes = [_box([_line(caption, 72, at)]), *_grid_boxes(grid, top=top)]
    _, tables = lift_tables(boxes)
    assert len(tables) == 1
    assert tables[0].rows == tuple(tuple(row) for row in grid)


_FIGURE = st.integers(4, 8).flatmap(lambda rows: st.integers(3, 6).flatmap(
    lambda cols: st.lists(st.lists(st.integers(0, 999).map(str), min_size=cols,
                                   max_size=cols), min_size=rows, max_size=rows)))


@settings(max_examples=examples(40), deadline=None)
@given(grid=_FIGURE)
def test_a_grid_of_figures_is_a_table_without_a_caption(grid: list[list[str]]) -> None:
    _, tables = lift_tables(_grid_boxes(grid))
    assert len(tables) == 1


@settings(max_examples=examples(40), deadline=None)
@given(grid=_FIGURE, label=st.sampled_from(["Figure 3: Throughput", "Fig. 2. Values",
                                            "FIGURE 7 Axis"]))
def test_a_grid_whose_nearest_caption_is_a_figures_is_figure_text(
        grid: list[list[str]], label: str) -> None:
    boxes = [*_grid_boxes(grid), _box([_line(label, 72, _bottom(grid, 600.0) - 12)])]
    _, tables = lift_tables(boxes)
    assert tables == []


def test_one_caption_names_one_table_the_nearest() -> None:
    upper = [["Ann Lee", "Bo Chen"], ["Oslo", "Bergen"], ["Norway", "Norway"]]
    lower = [["Model", "Data"], ["ours", "dev set"], ["theirs", "test set"]]
    boxes = [*_grid_boxes(upper, top=700), _box([_line("Table 1: Models", 72, 560)]),
             *_grid_boxes(lower, top=540)]
    _, tables = lift_tables(boxes)
    assert [t.rows[0] for t in tables] == [("Model", "Data")]


def test_a_caption_in_the_other_column_names_nothing_here() -> None:
    grid = [["Ann Lee", "Bo Chen"], ["Oslo", "Bergen"], ["Norway", "Norway"]]
    boxes = [*_grid_boxes(grid, left=72), _box([_line("Table 1: Elsewhere", 400, 620)])]
    _, tables = lift_tables(boxes)
    assert tables == []


def test_numeric_grid_rule() -> None:
    assert is_numeric_grid([["a", "1", "2"], ["b", "3.5", "4%"], ["c", "±5", "(6)"],
                            ["d", "1,200", "7.1 ± 0.2"]])
    assert not is_numeric_grid([["a", "1", "2"], ["b", "3", "4"], ["c", "5", "6"]])
    assert not is_numeric_grid([["1.", "Introduction", "2"], ["2.", "Method", "4"],
                                ["3.", "Results", "9"], ["4.", "Notes", "12"]])
    assert not is_numeric_grid([["1", "if (x)"], ["2", "y = 1;"], ["3", "z"], ["4", "w"]])


@settings(max_examples=examples(40), deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["Without LM", "With LM", "Avg. of 15 models",
                                                "Baseline system", "Ours"]),
                               # Figures of one width: the split estimates a figure's
                               # width from the line's, and right-aligned figures of
                               # different widths would overlap the labels' column.
                               st.floats(10, 99.9).map(lambda v: f"{v:.1f}")),
                     min_size=3, max_size=6))
def test_a_label_and_its_figure_joined_in_one_line_are_two_cells(
        rows: list[tuple[str, str]]) -> None:
    # Layout analysis joins a row's label and figure when they stand close; the lines
    # are right-aligned under a two-cell header, with the caption under them.
    right = 300.0
    lines = [_line("Description", 215, 600), _line("F1", 288, 600)]
    for i, (label, figure) in enumerate(rows):
        text = f"{label} {figure}"
        top = 587 - i * ROW_STEP
        lines.append(TextLine(text=text, size=9.0, font="Times", bold=False,
                              chars=len(text), bbox=(right - 5.0 * len(text),
                                                     top - LINE_HEIGHT, right, top)))
    bottom = 587 - (len(rows) - 1) * ROW_STEP - LINE_HEIGHT
    caption = _box([_line("Table 3: Results on the development set", 100, bottom - 14)])
    _, tables = lift_tables([_box(lines[:1]), _box(lines[1:2]), _box(lines[2:]), caption])
    assert len(tables) == 1
    assert tables[0].rows == (("Description", "F1"), *rows)
    # Without the caption two columns of a label and a figure are no evidence.
    _, uncaptioned = lift_tables([_box(lines[:1]), _box(lines[1:2]), _box(lines[2:])])
    assert uncaptioned == []
