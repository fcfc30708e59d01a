"""The layout rules worked out over arrays (ADR-0042, third pass) are pdfminer's rules:
lines and word spaces from glyph boxes, the first pairs of text-box grouping, and the
rules as a reader sees them on generated pages, through both engines."""

from __future__ import annotations

import heapq
import math

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pdfminer.fontmetrics import FONT_METRICS
from pdfminer.layout import (
    LTChar,
    LTLayoutContainer,
    LTTextBoxHorizontal,
    LTTextGroup,
    LTTextGroupLRTB,
    LTTextLine,
    LTTextLineHorizontal,
)
from pdfminer.utils import INF as PDFMINER_INF

from sheaf.adapters.pdf import stable_grouping
from sheaf.adapters.pdf.glyph_boxes import GlyphChar
from sheaf.adapters.pdf.layout_parameters import LAYOUT
from sheaf.adapters.pdf.layout_reading import read_boxes
from sheaf.adapters.pdf.line_grouping import LineGrouping, _lines_glyph_by_glyph, glyph_lines
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from sheaf.adapters.pdf.stable_grouping import (
    _first_pairs,
    _group_on_plane,
    _wasted_area,
    group_boxes_stably,
)
from sheaf.domain.pdf.text_repairs import join_lines
from tests.pdf_replaced_steps import join_searching_whole_paragraph
from tests.pdf_writer import write_raw_page_pdf
from tests.property_examples import examples

ENGINES = ["pdfminer", *(["pdfium"] if pdfium_available() else [])]


def _glyph(box: tuple[float, float, float, float], text: str = "a") -> LTChar:
    x0, y0, x1, y1 = box
    char = GlyphChar.__new__(GlyphChar)
    char._text = text
    char.matrix = (1, 0, 0, 1, x0, y0)
    char.fontname = "F"
    char.ncs = char.graphicstate = None
    char.upright = True
    char.x0, char.y0, char.x1, char.y1 = box
    char.width, char.height = x1 - x0, y1 - y0
    char.adv = char.width
    char.bbox = box
    char.size = char.height
    return char


def _lines(lines: list[LTTextLine]) -> list[tuple[object, ...]]:
    return [(line.bbox, "".join(obj._text for obj in line._objs)) for line in lines]


COORDINATE = st.floats(-50, 650, allow_nan=False, allow_infinity=False)
EXTENT = st.sampled_from([0.0, 0.5, 3.0, 5.5, 10.0, 24.0]) | st.floats(0, 30)


@st.composite
def glyph_runs(draw: st.DrawFn) -> list[tuple[float, float, float, float]]:
    """Glyph boxes as pages draw them: mostly each after the one before on its baseline
    (gaps around the word and line thresholds), with jumps to new lines and places,
    overlaps, zero widths and, now and then, a coordinate that is not finite."""
    boxes: list[tuple[float, float, float, float]] = []
    x, y = draw(COORDINATE), draw(COORDINATE)
    for _ in range(draw(st.integers(1, 40))):
        step = draw(st.sampled_from(["next", "next", "next", "jump", "drop", "odd"]))
        width, height = draw(EXTENT), draw(st.sampled_from([6.0, 9.5, 10.0, 24.0]))
        if step == "next":
            x += draw(st.sampled_from([0.0, 0.5, 0.99, 1.0, 1.01, 2.4, 9.0, 19.0, 21.0])
                      | st.floats(-3, 30))
        elif step == "jump":
            x, y = draw(COORDINATE), draw(COORDINATE)
        elif step == "drop":
            y -= draw(st.sampled_from([2.0, 4.9, 5.0, 5.1, 12.0]) | st.floats(-12, 12))
        else:
            x = draw(st.sampled_from([math.inf, -math.inf, math.nan, 3e9, x]))
        boxes.append((x, y, x + width, y + height))
        x += width
    return boxes


@given(glyph_runs(), st.sampled_from([0.1, 0.0]))
@settings(max_examples=examples(400), deadline=None)
def test_lines_and_word_spaces_are_pdfminers_for_any_glyph_boxes(
        boxes: list[tuple[float, float, float, float]], word_margin: float) -> None:
    """Against pdfminer's own grouping where coordinates are within pdfminer's INF
    (2**31 - 1, where its boxes start and stop growing); against sheaf's glyph-by-glyph
    grouping always (a non-finite coordinate is read that way)."""
    chars = [_glyph(box, chr(97 + i % 26)) for i, box in enumerate(boxes)]
    laparams = LAYOUT.__class__(**{**vars(LAYOUT), "word_margin": word_margin})
    ours = list(glyph_lines(chars, laparams))
    by_glyph = list(_lines_glyph_by_glyph(chars, laparams))
    assert _lines(ours) == _lines(by_glyph)
    assert [line._x1 for line in ours] == [line._x1 for line in by_glyph]
    if all(abs(v) < PDFMINER_INF for box in boxes for v in box):
        reference = list(LTLayoutContainer((0, 0, 1, 1)).group_objects(laparams, chars))
        assert _lines(ours) == _lines(reference)
        assert [line._x1 for line in ours] == [line._x1 for line in reference]


def _box(box: tuple[float, float, float, float]) -> LTTextBoxHorizontal:
    text_box = LTTextBoxHorizontal()
    text_box.set_bbox(box)
    return text_box


@given(st.lists(st.tuples(COORDINATE, COORDINATE, EXTENT, EXTENT)
                | st.tuples(COORDINATE, st.just(math.inf), EXTENT, EXTENT), max_size=25))
@settings(max_examples=examples(300), deadline=None)
def test_first_pairs_leave_the_heap_as_when_pushed_pair_by_pair(
        corners: list[tuple[float, float, float, float]]) -> None:
    boxes = [_box((x, y, x + w, y + h)) for x, y, w, h in corners]
    reference = [(False, _wasted_area(a, b), i, j) for i, a in enumerate(boxes)
                 for j, b in enumerate(boxes[i + 1:], start=i + 1)]
    heapq.heapify(reference)
    ours = _first_pairs(boxes)
    popped = [heapq.heappop(ours) for _ in range(len(ours))]
    # repr: a NaN area is not equal to itself, but must stand in the same place.
    assert repr(popped) == repr([heapq.heappop(reference) for _ in range(len(reference))])


def _tree(element: object, boxes: list[LTTextBoxHorizontal]) -> object:
    """A grouping as nested tuples of box numbers, each group with its class and box."""
    if isinstance(element, LTTextGroup):
        return (type(element).__name__, element.bbox,
                tuple(_tree(child, boxes) for child in element))
    return next(i for i, box in enumerate(boxes) if box is element)


PAGE_EDGE = st.sampled_from([0.0, 0.0, 12.5, 300.0])
ON_PAGE = st.floats(0, 600, allow_nan=False) | st.sampled_from([0.0, 50.0, 99.99, 600.0])
ODD = st.sampled_from([-5.0, 601.0, 1e12, math.inf, -math.inf, math.nan])


@given(st.lists(st.tuples(ON_PAGE, ON_PAGE,
                          EXTENT | st.sampled_from([0.0, 50.0, 120.0]), EXTENT), max_size=24),
       st.lists(st.tuples(st.integers(0, 23), st.integers(0, 3), ODD), max_size=2),
       PAGE_EDGE, st.sampled_from([600.0, 620.0, 400.0]),
       st.sampled_from([stable_grouping.BLOCKED_CELLS, 0, 60, 400]))
@settings(max_examples=examples(300), deadline=None)
def test_grouping_over_arrays_is_the_planes(
        corners: list[tuple[float, float, float, float]],
        odd: list[tuple[int, int, float]], edge: float, far: float, cells: int) -> None:
    """For any boxes (equal sizes and gaps, boxes on cell edges of the plane's grid,
    boxes touching, now and then one off the page or not finite), on a page whose
    corner is at the origin or not: the same tree, classes and boxes as grouping on
    pdfminer's `Plane` pair by pair, or the same error; whether the pairs found
    blocked when made are found so then, or some or none of them (`cells`) only when
    they come up."""
    rows = [[x, y, x + w, y + h] for x, y, w, h in corners]
    for row, column, value in odd:
        if row < len(rows):
            rows[row][column] = value
    boxes = [_box(tuple(row)) for row in rows]  # type: ignore[arg-type]
    page = LTLayoutContainer((edge, edge, far, far))

    def outcome(group: object) -> object:
        try:
            return [_tree(e, boxes) for e in group(page, boxes)]  # type: ignore[operator]
        except (ValueError, OverflowError) as exc:
            return type(exc).__name__

    default = stable_grouping.BLOCKED_CELLS
    stable_grouping.BLOCKED_CELLS = cells
    try:
        ours = outcome(group_boxes_stably)
    finally:
        stable_grouping.BLOCKED_CELLS = default
    plane = outcome(lambda page, boxes: _group_on_plane(page, boxes, LTTextGroupLRTB))
    assert repr(ours) == repr(plane)


class _ArrayGroupingPage(LineGrouping, LTLayoutContainer):
    pass


LINE_EDGE = st.sampled_from([0.0, 49.5, 50.0, 100.0, 149.99, 150.0, 200.0]) | st.floats(0, 300)
LINE_HEIGHT = st.sampled_from([0.0, 9.0, 10.0, 10.5, 12.0]) | st.floats(0, 30)


@st.composite
def line_stacks(draw: st.DrawFn) -> list[tuple[float, float, float, float]]:
    """Paragraphs as pages set them: lines of one height stacked within the line
    margin, their left edges on either side of a cell edge now and then; and lines
    anywhere."""
    corners: list[tuple[float, float, float, float]] = []
    for _ in range(draw(st.integers(0, 3))):
        x = draw(st.sampled_from([49.5, 50.0, 99.5, 100.4]) | LINE_EDGE)
        y = draw(st.sampled_from([95.0, 100.0, 146.0, 153.0]) | LINE_EDGE) + 60
        height = draw(st.sampled_from([9.0, 10.0, 12.0]))
        for _ in range(draw(st.integers(1, 8))):
            shift = draw(st.sampled_from([0.0, 0.0, -0.75, 0.75, 3.0]))
            width = draw(st.sampled_from([40.0, 60.0, 120.0]) | st.floats(0, 200))
            corners.append((x + shift, y, width, height))
            y -= height + draw(st.sampled_from([0.0, 2.0, 4.5, 6.0]))
    corners += draw(st.lists(st.tuples(LINE_EDGE, LINE_EDGE, st.sampled_from(
        [0.0, 40.0, 60.0, 120.0]) | st.floats(0, 200), LINE_HEIGHT), max_size=12))
    return draw(st.permutations(corners))


@example(  # the lines around one straddle a cell's edge: the plane's row-first order
    [(48.75, 112.0, 100.0, 10.0), (50.25, 88.0, 100.0, 10.0), (49.5, 100.0, 100.0, 10.0)],
    [], 0.0, 300.0)
@given(line_stacks(),
       st.lists(st.tuples(st.integers(0, 29), st.integers(0, 3), ODD), max_size=2),
       PAGE_EDGE, st.sampled_from([300.0, 330.0, 200.0]))
@settings(max_examples=examples(300), deadline=None)
def test_lines_group_into_boxes_as_on_pdfminers_plane(
        corners: list[tuple[float, float, float, float]],
        odd: list[tuple[int, int, float]], edge: float, far: float) -> None:
    """For any lines (stacked at equal heights and gaps, aligned left, right or on
    centre, on the plane's cell edges, now and then one off the page or not finite),
    on a page whose corner is at the origin or not: the same boxes, their lines in the
    same order, as pdfminer's `group_textlines`, or the same error."""
    rows = [[x, y, x + w, y + h] for x, y, w, h in corners]
    for row, column, value in odd:
        if row < len(rows):
            rows[row][column] = value
    lines = []
    for row in rows:
        line = LTTextLineHorizontal(0.1)
        line.set_bbox(tuple(row))  # type: ignore[arg-type]
        lines.append(line)
    laparams = LAYOUT

    def outcome(page: LTLayoutContainer) -> object:
        try:
            return [(box.bbox, [next(i for i, line in enumerate(lines) if line is member)
                                for member in box]) for box in page.group_textlines(
                                    laparams, lines)]
        except (ValueError, OverflowError) as exc:
            return type(exc).__name__

    box = (edge, edge, far, far)
    assert repr(outcome(_ArrayGroupingPage(box))) == repr(outcome(LTLayoutContainer(box)))


@given(st.lists(st.text(alphabet="ab-Zé \u00ad\n1", max_size=8), max_size=8))
@settings(max_examples=examples(500), deadline=None)
def test_a_hyphen_break_is_found_as_by_searching_the_whole_paragraph(lines: list[str]) -> None:
    assert join_lines(lines) == join_searching_whole_paragraph(lines)


# Generated pages: two words in Helvetica, the second moved by a kerning gap (and up or
# down); widths from the font's metrics, so each rule's threshold is known.
HELVETICA = FONT_METRICS["Helvetica"][1]
WORD = st.text(alphabet="abcdemnorstuw", min_size=1, max_size=6)


def _line_texts(data: bytes, engine: str) -> list[str]:
    boxes = read_boxes(data, max_pages=1, deadline=math.inf, engine=engine)
    return [line.text for box in boxes for line in box.lines]


def _two_words(first: str, second: str, size: float, gap: float, rise: float) -> bytes:
    kern = -1000 * gap / size
    return write_raw_page_pdf([
        f"BT /F1 {size} Tf 72 400 Td [({first}) {kern:.3f}] TJ 0 {rise:.3f} Ts ({second}) Tj ET"])


@pytest.mark.parametrize("engine", ENGINES)
@given(first=WORD, second=WORD, size=st.sampled_from([6, 9.5, 11, 24]),
       share=st.floats(0, 0.7) | st.floats(1.3, 6))
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_a_gap_wider_than_the_word_margin_parts_the_words(
        engine: str, first: str, second: str, size: float, share: float) -> None:
    """The margin is a tenth of the next glyph's larger side (its height, the type size,
    for these letters); a gap past a share of 1.3 of it is a space, below 0.7 none, as
    long as the gap stays short of the line's reach (twice the wider glyph)."""
    margin = LAYOUT.word_margin * size
    reach = LAYOUT.char_margin * size * max(HELVETICA[first[-1]], HELVETICA[second[0]]) / 1000
    gap = share * margin
    assume(gap < 0.7 * reach)
    texts = _line_texts(_two_words(first, second, size, gap, 0), engine)
    assert texts == [f"{first} {second}" if share > 1 else f"{first}{second}"]


@pytest.mark.parametrize("engine", ENGINES)
@given(first=WORD, second=WORD, size=st.sampled_from([6, 9.5, 11, 24]),
       share=st.floats(1.3, 8))
@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_a_gap_past_the_line_reach_starts_a_new_line(
        engine: str, first: str, second: str, size: float, share: float) -> None:
    reach = LAYOUT.char_margin * size * max(HELVETICA[first[-1]], HELVETICA[second[0]]) / 1000
    texts = _line_texts(_two_words(first, second, size, share * reach, 0), engine)
    assert sorted(texts) == sorted([first, second])


@pytest.mark.parametrize("engine", ENGINES)
@given(first=WORD, second=WORD, size=st.sampled_from([6, 9.5, 11, 24]),
       share=st.floats(0, 0.3) | st.floats(0.7, 3), down=st.booleans())
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_glyphs_overlapping_less_than_half_their_height_are_on_other_lines(
        engine: str, first: str, second: str, size: float, share: float,
        down: bool) -> None:
    """Glyphs continue a line while they overlap it vertically by more than half the
    smaller glyph's height (the type size here): a rise past 0.7 of it parts them, one
    below 0.3 does not."""
    rise = (-1 if down else 1) * share * size
    texts = _line_texts(_two_words(first, second, size, 1.5 * LAYOUT.word_margin * size,
                                   rise), engine)
    if share < 0.5:
        assert texts == [f"{first} {second}"]
    else:
        assert sorted(texts) == sorted([first, second])
