"""Tables of a PDF page found from the alignment of short text lines (ADR-0013).

Layout analysis gives a table back as loose pieces: a column of numbers becomes one box
of short lines, a cell one box, and the structure pass then reads a column name as a
heading over a run of numbers. A table is recognised by what every table shares, not by
its look: three or more rows in which two or more short lines stand side by side on one
baseline, their horizontal extents falling into the same columns row after row. Prose
lines (long lines of many-line boxes) never take part, so the two columns of a paper are
not a table.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

import attrs

from ..document.document import BlockDraft, BlockKind
from .geometry import Bbox, bbox_union, vertical_overlap
from .ruled_tables import Rule, find_ruled_tables
from .structure import TextBox, clean_text, pages_of
from .table import PdfTable
from .table_evidence import tables_with_evidence

MIN_ROWS = 3
MIN_COLUMNS = 2
PROSE_LINE_CHARS = 30
"""A box of several lines averaging this many characters or more is running text."""
LONGEST_CELL_CHARS = 50
"""A line this long is a sentence, not a cell."""
MIN_FILLED = 0.8
"""The share of grid cells that must hold text."""
ROW_GAP_LINES = 2.6
"""Rows further apart than this many line heights belong to different tables."""


@attrs.frozen
class _Cell:
    box: int
    line: int
    text: str
    bbox: tuple[float, float, float, float]


def find_tables(boxes: Sequence[TextBox]) -> list[PdfTable]:
    """Tables on the boxes of one page, top to bottom. `boxes` must be of one page."""
    if not boxes:
        return []
    cells = [piece for b, box in enumerate(boxes) if not _is_prose(box)
             for i, line in enumerate(box.lines) if line.text.strip()
             for piece in _label_and_figure(_Cell(b, i, clean_text([line.text]), line.bbox))]
    rows = _rows(cells)
    tables: list[PdfTable] = []
    run: list[list[_Cell]] = []
    for row in [*rows, []]:
        if run and (not row or _gap(run[-1], row) > ROW_GAP_LINES * _height(run[-1])):
            tables += [t for t in _table(boxes[0].page, run) if not _is_formula(boxes, t)]
            run = []
        if len(row) >= MIN_COLUMNS or (run and row):
            run.append(row)
    return tables


_LABELLED_FIGURE = re.compile(r"^(?P<label>.*[^\W\d_].*?)\s+"
                              r"(?P<figure>[-+−]?\d*[.,]\d+%?|[-+−]?\d+(?:[.,]\d+)?%)$")
_CAPTION_START = re.compile(r"^(?:table|tab\.|figure|fig\.|section|chapter)\b", re.I)


def _label_and_figure(cell: _Cell) -> list[_Cell]:
    """A row's label and its figure joined into one line (`Without LM 49.9`: layout
    analysis joins cells set closer than two glyph widths) as two cells, the figure's
    share of the line's width by its share of the characters. Only a decimal or a
    percentage counts as a figure: a word and a bare integer (`Step 3`, `in 2019`) stay
    one cell."""
    match = _LABELLED_FIGURE.match(cell.text)
    if match is None or _CAPTION_START.match(cell.text):
        return [cell]
    x0, y0, x1, y1 = cell.bbox
    figure = match.group("figure")
    glyph = (x1 - x0) / len(cell.text)
    cut = x1 - glyph * len(figure)
    # The label ends a space and a half before the figure's estimated start: the
    # estimate is the line's mean glyph width, and digits are narrower than most.
    return [attrs.evolve(cell, text=match.group("label"), bbox=(x0, y0, cut - 1.5 * glyph, y1)),
            attrs.evolve(cell, text=figure, bbox=(cut, y0, x1, y1))]


MATH_SHARE = 0.4
"""A grid whose glyphs are this much math is a displayed formula's aligned rows."""


def _is_formula(boxes: Sequence[TextBox], table: PdfTable) -> bool:
    lines = [boxes[b].lines[i] for b, i in table.taken]
    return sum(line.math for line in lines) >= MATH_SHARE * max(1, sum(x.chars for x in lines))


def _is_prose(box: TextBox) -> bool:
    average = sum(len(line.text) for line in box.lines) / len(box.lines)
    return (len(box.lines) >= 2 and average >= PROSE_LINE_CHARS) or any(
        len(line.text) >= LONGEST_CELL_CHARS for line in box.lines)


def _rows(cells: list[_Cell]) -> list[list[_Cell]]:
    """Cells grouped by baseline, top to bottom, each row left to right."""
    rows: list[list[_Cell]] = []
    for cell in sorted(cells, key=lambda c: (-c.bbox[1], c.bbox[0], c.box, c.line)):
        row = rows[-1] if rows else None
        if row is not None and _same_baseline(row[0].bbox, cell.bbox):
            row.append(cell)
        else:
            rows.append([cell])
    return [sorted(row, key=lambda c: (c.bbox[0], c.box, c.line)) for row in rows]


def _same_baseline(a: Bbox, b: Bbox) -> bool:
    return vertical_overlap(a, b) >= 0.6


def _height(row: list[_Cell]) -> float:
    return max(c.bbox[3] - c.bbox[1] for c in row)


def _gap(above: list[_Cell], below: list[_Cell]) -> float:
    return min(c.bbox[1] for c in above) - max(c.bbox[3] for c in below)


def _table(page: int, run: list[list[_Cell]]) -> list[PdfTable]:
    while run and len(run[-1]) < MIN_COLUMNS:
        run = run[:-1]
    run = _without_detached_edges(run)
    if sum(1 for row in run if len(row) >= MIN_COLUMNS) < MIN_ROWS:
        return []
    columns = _columns([row for row in run if len(row) >= MIN_COLUMNS])
    if len(columns) < MIN_COLUMNS:
        return []
    grid: list[list[str]] = []
    for row in run:
        placed = [""] * len(columns)
        for cell in row:
            for index, text in _split_over_columns(cell, columns):
                placed[index] = f"{placed[index]} {text}".strip()
        if grid and len(row) == 1 and not placed[0]:
            # A lone line under a row, in a column other than the first, is the rest of
            # a cell that wraps.
            grid[-1] = [f"{a} {b}".strip() for a, b in zip(grid[-1], placed, strict=True)]
        else:
            grid.append(placed)
    grid = _merge_header_lines(grid)
    filled = sum(1 for row in grid for cell in row if cell) / (len(grid) * len(columns))
    if len(grid) < MIN_ROWS or filled < MIN_FILLED:
        # Scattered labels (a figure's axes, an equation's pieces) leave most of the grid
        # empty; a table fills it.
        return []
    every = [c for row in run for c in row]
    bbox = bbox_union(c.bbox for c in every)
    return [PdfTable(page, tuple(tuple(r) for r in grid), bbox,
                     frozenset((c.box, c.line) for c in every))]


MAX_HEADER_LINES = 3


def _without_detached_edges(run: list[list[_Cell]]) -> list[list[_Cell]]:
    """A sparse first or last row set apart by more than the table's usual row gap is a
    running header, a page number or a note beside the table, not a row of it."""
    if len(run) <= MIN_ROWS:
        return run
    gaps = sorted(_gap(a, b) for a, b in itertools.pairwise(run))
    usual = gaps[len(gaps) // 2]
    widest = max(len(row) for row in run)
    if len(run[0]) * 2 < widest and _gap(run[0], run[1]) > 1.5 * usual + 1:
        run = run[1:]
    if len(run) > MIN_ROWS and len(run[-1]) * 2 < widest and (
            _gap(run[-2], run[-1]) > 1.5 * usual + 1):
        run = run[:-1]
    return run


def _merge_header_lines(grid: list[list[str]]) -> list[list[str]]:
    """Column names set on two or three lines ("Estimated QA" over "Performance") are one
    header row: the partly filled rows above the first row with every cell filled are
    joined column by column. Without such a row nothing is joined, since a sparse table's
    rows cannot be told from a header's lines."""
    first_full = next((i for i, row in enumerate(grid) if all(row)), None)
    if first_full is None or not 2 <= first_full <= MAX_HEADER_LINES:
        return grid
    header = [" ".join(part for part in column if part)
              for column in zip(*grid[:first_full], strict=True)]
    return [header, *grid[first_full:]]


def _columns(rows: list[list[_Cell]]) -> list[tuple[float, float]]:
    """Column extents: horizontal spans of cells merged where they overlap, taken from
    the rows with the most cells (a header cell spanning two columns does not join
    them)."""
    widest = max(len(row) for row in rows)
    spans = sorted((c.bbox[0], c.bbox[2]) for row in rows if len(row) == widest for c in row)
    merged: list[tuple[float, float]] = []
    for left, right in spans:
        if merged and left < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], right))
        else:
            merged.append((left, right))
    return merged


def _split_over_columns(cell: _Cell, columns: list[tuple[float, float]]
                        ) -> list[tuple[int, str]]:
    """Where a cell goes. Layout analysis joins cells set close together into one line
    ("Precision Recall" over two columns); a line covering most of k columns and made of
    exactly k words is those k cells. Any other line is one cell."""
    left, right = cell.bbox[0], cell.bbox[2]
    covered = [i for i, (a, b) in enumerate(columns) if min(right, b) - max(left, a)
               > 0.5 * (b - a)]
    words = cell.text.split()
    if len(covered) >= 2 and len(words) == len(covered):
        return list(zip(covered, words, strict=True))
    return [(_column_of(cell, columns), cell.text)]


def _column_of(cell: _Cell, columns: list[tuple[float, float]]) -> int:
    left, right = cell.bbox[0], cell.bbox[2]
    overlaps = [min(right, b) - max(left, a) for a, b in columns]
    best = max(range(len(columns)), key=lambda i: (overlaps[i], -i))
    if overlaps[best] > 0:
        return best
    centre = (left + right) / 2
    return min(range(len(columns)), key=lambda i: abs((columns[i][0] + columns[i][1]) / 2
                                                       - centre))


def lift_tables(boxes: Sequence[TextBox], rules: Mapping[int, Sequence[Rule]] | None = None
                ) -> tuple[list[TextBox], list[PdfTable]]:
    """The boxes without the lines that became table cells, and the tables, page by page:
    first those a page draws as a grid of rules (`rules`, by page), then those found by
    alignment among the lines left. Boxes must come page by page, as the reader yields
    them."""
    kept: list[TextBox] = []
    tables: list[PdfTable] = []
    for page_boxes in pages_of(boxes):
        ruled = find_ruled_tables(page_boxes, rules.get(page_boxes[0].page, ()) if rules else ())
        found = find_tables(page_boxes)
        if ruled:
            # Rules that group columns (three numbers to a ruled column) give fewer
            # columns than the alignment they enclose; the finer reading wins.
            ruled = [t for t in ruled if not any(
                _overlap(t.bbox, a.bbox) >= 0.5 and _columns_of(a) > _columns_of(t)
                for a in found)]
        if ruled:
            ruled = tables_with_evidence([], page_boxes, ruled)
        if ruled:
            page_boxes = _without(page_boxes, ruled)
            found = find_tables(page_boxes)
        # The page's captions and the other grids are read from all its lines.
        found = [t for t in tables_with_evidence(found, page_boxes, ruled)
                 if t in found]
        kept += _without(page_boxes, found)
        tables += sorted(ruled + found, key=lambda t: (-t.bbox[3], t.bbox[0]))
    return kept, tables


def _columns_of(table: PdfTable) -> int:
    return max((len(row) for row in table.rows), default=0)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
             ) -> float:
    """The share of the smaller box that the two boxes have in common."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / smaller if width > 0 and height > 0 and smaller > 0 else 0.0


def _without(boxes: list[TextBox], tables: list[PdfTable]) -> list[TextBox]:
    taken = frozenset().union(*(t.taken for t in tables)) if tables else frozenset()
    kept: list[TextBox] = []
    for b, box in enumerate(boxes):
        lines = tuple(line for i, line in enumerate(box.lines) if (b, i) not in taken)
        if len(lines) == len(box.lines):
            kept.append(box)
        elif lines:
            kept.append(attrs.evolve(box, lines=lines, bbox=bbox_union(x.bbox for x in lines)))
    return kept


def place_tables(drafts: list[BlockDraft], tables: list[PdfTable]) -> list[BlockDraft]:
    """Each table inserted in reading order: before the first block of its page that lies
    below the table's top and overlaps it sideways (so a caption above stays above and
    a caption below follows), else at the end of its page."""
    return place_by_position(drafts, [table.draft() for table in tables])


def place_by_position(drafts: list[BlockDraft], lifted: list[BlockDraft]) -> list[BlockDraft]:
    """Blocks lifted out of the text flow (tables, formulas), each with its page and box,
    put back in reading order by the rule of `place_tables`."""
    placed = list(drafts)
    for draft in lifted:
        placed.insert(_insertion_index(placed, draft), draft)
    return placed


def _insertion_index(drafts: list[BlockDraft], lifted: BlockDraft) -> int:
    page = lifted.pages[0] if lifted.pages else 0
    same_page = [i for i, d in enumerate(drafts) if page in d.pages]
    left, _, right, top = lifted.bbox or (0.0, 0.0, 0.0, 0.0)
    for i in same_page:
        draft = drafts[i]
        if draft.kind is BlockKind.TABLE or draft.bbox is None:
            continue
        overlaps = min(right, draft.bbox[2]) > max(left, draft.bbox[0])
        if overlaps and draft.bbox[3] <= top + 1:
            return i
    if same_page:
        return same_page[-1] + 1
    later = [i for i, d in enumerate(drafts) if d.pages and d.pages[0] > page]
    return later[0] if later else len(drafts)
