"""pdfminer's grouping of text lines into text boxes, its neighbour search over arrays.

pdfminer's `group_textlines` asks its `Plane` (a grid of 50-point cells) for the lines
near each line (`find_neighbors`: within the line's box grown by `line_margin` of its
height above and below, of the same height within that margin, and left-, right- or
centre-aligned within it), one line at a time. Here the same tests are taken for all
pairs of lines at once, with the same floating-point operations, and each line's
neighbours are put in the order the plane yields them: by the first grid cell (row by
row, then along the row) that the line and the searched rectangle share, then in the
order the lines were placed. That equivalence holds when no line is clipped by the
plane (every coordinate finite and inside the page, whose corner is not below zero);
other pages, and pages with very many lines (the pairs grow as their square), take
pdfminer's own search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pdfminer.layout import LTTextLineHorizontal

GRID = 50
"""pdfminer's `Plane` cell size (its default, used by `group_textlines`)."""
MAX_LINES = 800
"""Lines on a page above which the all-pairs test costs more than the plane."""
INF = float("inf")


def line_neighbours(bbox: tuple[float, float, float, float],
                    lines: Sequence[Any], ratio: float) -> list[list[int]] | None:
    """For each line, the numbers of its neighbours as `find_neighbors` returns them
    (the line itself among them), or None where the page needs pdfminer's plane."""
    count = len(lines)
    px0, py0, px1, py1 = bbox
    if not (0 < count <= MAX_LINES and 0 <= px0 <= px1 < INF and 0 <= py0 <= py1 < INF):
        return None
    if not all(isinstance(line, LTTextLineHorizontal) for line in lines):
        return None
    x0, y0, x1, y1, height = np.array(
        [(line.x0, line.y0, line.x1, line.y1, line.height) for line in lines],
        dtype=np.float64).T
    if not (np.isfinite(height).all() and (px0 <= x0).all() and (x0 <= x1).all()
            and (x1 <= px1).all() and (py0 <= y0).all() and (y0 <= y1).all()
            and (y1 <= py1).all()):
        return None
    # Row: the line searched around; column: the line found.
    margin = ratio * height
    d = margin[:, None]
    low, high = (y0 - margin)[:, None], (y1 + margin)[:, None]
    found = ~((x1[None, :] <= x0[:, None]) | (x1[:, None] <= x0[None, :])
              | (y1[None, :] <= low) | (high <= y0[None, :]))
    found &= np.abs(height[None, :] - height[:, None]) <= d
    found &= ((np.abs(x0[None, :] - x0[:, None]) <= d)
              | (np.abs(x1[None, :] - x1[:, None]) <= d)
              | (np.abs((x0 + x1)[None, :] / 2 - ((x0 + x1) / 2)[:, None]) <= d))
    rows, columns = np.nonzero(found)
    # The first cell of the searched rectangle (clipped to the page) the found line is
    # in: the later of the two first rows of cells, then the later of the first columns.
    searched_row = np.floor(np.maximum(py0, y0 - margin)).astype(np.int64) // GRID
    searched_column = np.floor(np.maximum(px0, x0)).astype(np.int64) // GRID
    own_row = np.floor(y0).astype(np.int64) // GRID
    own_column = np.floor(x0).astype(np.int64) // GRID
    cell_row = np.maximum(searched_row[rows], own_row[columns])
    cell_column = np.maximum(searched_column[rows], own_column[columns])
    order = np.lexsort((columns, cell_column, cell_row, rows))
    rows, columns = rows[order], columns[order]
    bounds = np.searchsorted(rows, np.arange(count + 1)).tolist()
    numbers = columns.tolist()
    return [numbers[bounds[i]:bounds[i + 1]] for i in range(count)]
