"""Whether a grid of text found on a page is a table, from the evidence it shows.

Alignment alone finds any text set in rows and columns: a figure's labels (a pipeline
diagram's boxes), an author and affiliation block, a table of contents, a code listing
beside its line numbers. A table shows more (issue 34):

- a caption: a line `Table 3`, `TABLE IV`, `Tab. 2` beside it, above or below, closer
  to it than any figure caption (`Figure 2`, `Fig. 3`) and than any other grid, since
  one caption names one table; or
- a grid of figures: four or more rows with two or more columns of numbers (at least
  half of those after the first), what a table without a caption holds (a results
  matrix), and what names, prose, code and a table of contents do not; or
- ruling lines joined into cells (`ruled_tables`), unless a figure caption is its
  nearest caption: the boxes of a diagram are drawn too.

A grid without any of these stays text, where it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .geometry import Bbox
from .structure import TextBox
from .table import PdfTable

_TABLE_CAPTION = re.compile(r"^\s*(?:table|tab\.)\s*(?:[0-9]+|[ivxlc]+)(?:\.[0-9]+)?\b",
                            re.IGNORECASE)
_FIGURE_CAPTION = re.compile(r"^\s*(?:figure|fig\.|listing|algorithm)\s*[0-9]+\b",
                             re.IGNORECASE)
_NUMBER = re.compile(r"^[\s(±+\-–−~<>≤≥]*[$€£]?\d[\d,.\s]*(?:%|[a-zA-Z]{0,3})?[)*†‡]*"
                     r"(?:\s*[±/]\s*\d[\d,.]*%?)?\s*$")

MIN_NUMERIC_ROWS = 4
MIN_NUMBER_COLUMNS = 2
NUMERIC_SHARE = 0.6
"""Of a column's filled cells, the share that must be numbers for a column of numbers."""


def captions(boxes: Sequence[TextBox]) -> list[tuple[str, Bbox]]:
    """The page's caption lines: ("table" or "figure", the line's box)."""
    found: list[tuple[str, Bbox]] = []
    for box in boxes:
        for line in box.lines:
            text = line.text
            if _TABLE_CAPTION.match(text):
                found.append(("table", line.bbox))
            elif _FIGURE_CAPTION.match(text):
                found.append(("figure", line.bbox))
    return found


def _distance(a: Bbox, b: Bbox) -> float | None:
    """The vertical gap between two boxes that share some width; None when they stand
    side by side (a caption in the other column names something else)."""
    if min(a[2], b[2]) - max(a[0], b[0]) <= 0:
        return None
    return max(0.0, a[1] - b[3], b[1] - a[3])


def is_numeric_grid(rows: Sequence[Sequence[str]]) -> bool:
    """Four or more rows with two or more columns of numbers, at least half of the
    columns after the first (a table of contents has one, its page numbers)."""
    width = max((len(r) for r in rows), default=0)
    if len(rows) < MIN_NUMERIC_ROWS or width < 1 + MIN_NUMBER_COLUMNS:
        return False
    numeric = 0
    for column in range(1, width):
        cells = [row[column] for row in rows if column < len(row) and row[column].strip()]
        if cells and sum(1 for c in cells if _NUMBER.match(c)) >= NUMERIC_SHARE * len(cells):
            numeric += 1
    return numeric >= MIN_NUMBER_COLUMNS and 2 * numeric >= width - 1


def tables_with_evidence(tables: Sequence[PdfTable], boxes: Sequence[TextBox],
                         ruled: Sequence[PdfTable] = ()) -> list[PdfTable]:
    """The tables (of one page, found by alignment, and `ruled`, found by rules) that
    show a table's evidence, in the order given (aligned, then ruled)."""
    every = [*tables, *ruled]
    if not every:
        return []
    labels = captions(boxes)
    # Each caption goes to the grid nearest it; each grid then knows its caption.
    named: dict[int, str] = {}
    nearest_to_table: dict[int, float] = {}
    for kind, line in labels:
        gaps = [(gap, i) for i, table in enumerate(every)
                if (gap := _distance(line, table.bbox)) is not None]
        if not gaps:
            continue
        gap, index = min(gaps)
        if gap < nearest_to_table.get(index, float("inf")):
            nearest_to_table[index] = gap
            named[index] = kind
    kept: list[PdfTable] = []
    for index, table in enumerate(every):
        named_as = named.get(index)
        if named_as == "table":
            kept.append(table)
        elif named_as == "figure":
            continue
        elif index >= len(tables) or is_numeric_grid(table.rows):
            kept.append(table)
    return kept
