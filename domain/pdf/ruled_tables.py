"""Tables of a PDF page drawn as a grid of ruling lines (ADR-0013).

Where a page draws a table's rows and columns as rules (stroked lines or thin filled
rectangles, as word processors and many journals do), the rules delimit the cells
better than alignment can: a cell may hold several lines of wrapped text, and columns
may stand closer than the gaps alignment looks for. A grid is a set of horizontal and
vertical rules that cross one another; its distinct rule positions are the row and
column boundaries, and every text line whose centre falls inside a cell is that cell's
text. A grid needs two rows and two columns that hold text; a figure's frame or a chart's
gridlines around a few labels is refused by how little of it holds text.
"""

from __future__ import annotations

from collections.abc import Sequence

from .structure import TextBox, clean_text
from .table import PdfTable

Rule = tuple[float, float, float, float]
"""A ruling line's box (x0, y0, x1, y1): one of its sides is (nearly) zero."""
TOLERANCE = 2.0
"""Rules this close meet, and rule positions this close are one boundary."""
THIN = 2.0
MIN_FILLED = 0.3
DRAWN_SHARE = 0.5
MIN_CELLS = 6
"""A framed pair of pictures and their caption (2 x 2) is not a table."""
MAX_CROSSINGS = 250_000
"""Pages with more rule pairs than this (a chart's hatching) are not searched."""


def rule_segments(x0: float, y0: float, x1: float, y1: float) -> list[Rule]:
    """The rules a drawn line or rectangle stands for: itself when thin, else its four
    sides (a cell's frame)."""
    width, height = x1 - x0, y1 - y0
    if width <= THIN or height <= THIN:
        return [(x0, y0, x1, y1)] if max(width, height) >= 4 * THIN else []
    return [(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)]


def find_ruled_tables(boxes: Sequence[TextBox], rules: Sequence[Rule]) -> list[PdfTable]:
    """Tables on the boxes of one page from the page's ruling lines."""
    horizontal = [r for r in rules if r[3] - r[1] <= THIN and r[2] - r[0] > THIN]
    vertical = [r for r in rules if r[2] - r[0] <= THIN and r[3] - r[1] > THIN]
    if not boxes or not horizontal or not vertical or (
            len(horizontal) * len(vertical) > MAX_CROSSINGS):
        return []
    tables = []
    for group in _grids(_joined(horizontal, 1), _joined(vertical, 0)):
        table = _read_grid(boxes, group)
        if table is not None:
            tables.append(table)
    return tables


def _joined(rules: list[Rule], axis: int) -> list[Rule]:
    """Collinear rules that meet end to end (a column's rule drawn cell by cell) joined
    into one (axis 1: horizontal rules, joined along x; 0: vertical, along y)."""
    along, across = (0, 1) if axis == 1 else (1, 0)
    out: list[list[float]] = []
    for rule in sorted(rules, key=lambda r: (round(r[across] / TOLERANCE), r[along])):
        last = out[-1] if out else None
        if (last is not None and abs(last[across] - rule[across]) <= TOLERANCE
                and rule[along] <= last[along + 2] + TOLERANCE):
            last[along + 2] = max(last[along + 2], rule[along + 2])
        else:
            out.append(list(rule))
    return [(r[0], r[1], r[2], r[3]) for r in out]


def _grids(horizontal: list[Rule], vertical: list[Rule]) -> list[list[Rule]]:
    """Rules that cross one another, grouped (union-find over crossings)."""
    rules = horizontal + vertical
    parent = list(range(len(rules)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for h, (hx0, hy0, hx1, hy1) in enumerate(horizontal):
        y = (hy0 + hy1) / 2
        for v, (vx0, vy0, vx1, vy1) in enumerate(vertical, start=len(horizontal)):
            x = (vx0 + vx1) / 2
            if (hx0 - TOLERANCE <= x <= hx1 + TOLERANCE
                    and vy0 - TOLERANCE <= y <= vy1 + TOLERANCE):
                parent[root(h)] = root(v)
    groups: dict[int, list[Rule]] = {}
    for i, rule in enumerate(rules):
        groups.setdefault(root(i), []).append(rule)
    return [group for _, group in sorted(groups.items())]


def _positions(values: list[float]) -> list[float]:
    """Distinct positions, those within the tolerance of each other taken as one."""
    out: list[float] = []
    for value in sorted(values):
        if not out or value - out[-1] > TOLERANCE:
            out.append(value)
    return out


def _drawn(group: list[Rule], position: float, axis: int, extent: float) -> float:
    """The share of the grid's `extent` that rules at `position` draw (axis 0: vertical
    rules at x, 1: horizontal rules at y)."""
    low, high = (1, 3) if axis == 0 else (0, 2)
    spans = sorted((r[low], r[high]) for r in group
                   if r[2 - axis] - r[axis] <= THIN
                   and abs((r[axis] + r[2 + axis]) / 2 - position) <= TOLERANCE)
    covered, reach = 0.0, float("-inf")
    for start, end in spans:
        start = max(start, reach)
        if end > start:
            covered += end - start
            reach = end
    return covered / extent if extent > 0 else 0.0


def _read_grid(boxes: Sequence[TextBox], group: list[Rule]) -> PdfTable | None:
    ys = _positions([(r[1] + r[3]) / 2 for r in group if r[3] - r[1] <= THIN])
    xs = _positions([(r[0] + r[2]) / 2 for r in group if r[2] - r[0] <= THIN])
    if len(ys) < 3 or len(xs) < 3:
        return None
    # A column boundary is a rule drawn down most of the grid (a spanning header cuts
    # it short); rules that only frame a header or one cell do not make columns.
    height, width = ys[-1] - ys[0], xs[-1] - xs[0]
    xs = [x for x in xs if _drawn(group, x, 0, height) >= DRAWN_SHARE]
    ys = [y for y in ys if _drawn(group, y, 1, width) >= DRAWN_SHARE]
    if len(ys) < 3 or len(xs) < 3:
        return None
    left, right, bottom, top = xs[0], xs[-1], ys[0], ys[-1]
    cells: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    taken: set[tuple[int, int]] = set()
    for b, box in enumerate(boxes):
        for i, line in enumerate(box.lines):
            x = (line.bbox[0] + line.bbox[2]) / 2
            y = (line.bbox[1] + line.bbox[3]) / 2
            if not (left < x < right and bottom < y < top) or not line.text.strip():
                continue
            row = sum(1 for boundary in ys if boundary > y) - 1
            column = sum(1 for boundary in xs if boundary < x) - 1
            cells.setdefault((row, column), []).append((-line.bbox[3], line.bbox[0], line.text))
            taken.add((b, i))
    rows = sorted({r for r, _ in cells})
    columns = sorted({c for _, c in cells})
    if len(rows) < 2 or len(columns) < 2 or len(rows) * len(columns) < MIN_CELLS:
        return None
    grid = tuple(tuple(clean_text([text for _, _, text in sorted(cells.get((r, c), []))])
                       for c in columns) for r in rows)
    filled = sum(1 for row in grid for cell in row if cell)
    if filled < MIN_FILLED * (len(ys) - 1) * (len(xs) - 1) or filled < 3:
        return None
    return PdfTable(page=boxes[0].page, rows=grid, bbox=(left, bottom, right, top),
                      taken=frozenset(taken))
