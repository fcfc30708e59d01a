"""pdfminer's layout containers with a text-box grouping whose result does not depend
on memory addresses.

pdfminer merges the closest pair of text boxes first and breaks ties in distance by
`id()` of the boxes, so boxes of equal size and spacing (table cells, CJK grids, two
equal columns) merge in an order that changes from run to run, and with it the reading
order. Here ties are broken by the order in which the boxes and groups were made, so
one file always gives one reading order (ADR-0013).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

import numpy as np
from pdfminer.layout import (
    LAParams,
    LTFigure,
    LTLayoutContainer,
    LTPage,
    LTTextBox,
    LTTextBoxVertical,
    LTTextGroup,
    LTTextGroupLRTB,
    LTTextGroupTBRL,
)
from pdfminer.utils import Plane

from ...domain.pdf.text_repairs import is_right_to_left
from .line_grouping import LineGrouping

_Element = LTTextBox | LTTextGroup


def _wasted_area(a: _Element, b: _Element) -> float:
    """The area of the rectangle around both that neither covers (may be negative)."""
    width = max(a.x1, b.x1) - min(a.x0, b.x0)
    height = max(a.y1, b.y1) - min(a.y0, b.y0)
    return width * height - a.width * a.height - b.width * b.height


def _first_pairs(boxes: Sequence[LTTextBox]) -> list[tuple[bool, float, int, int]]:
    """Every pair of the boxes (numbered in order) with its wasted area, as a heap: the
    pairs sorted by (area, first, second), which is the order they leave a heap in
    (every key differs), with the areas worked out over arrays by the same operations
    as `_wasted_area`."""
    count = len(boxes)
    if count < 2:
        return []
    x0, y0, x1, y1, width, height = np.array(
        [(b.x0, b.y0, b.x1, b.y1, b.width, b.height) for b in boxes], dtype=np.float64).T
    first, second = np.triu_indices(count, k=1)
    with np.errstate(all="ignore"):  # a non-finite area is caught below
        span = (np.where(x1[second] > x1[first], x1[second], x1[first])
                - np.where(x0[second] < x0[first], x0[second], x0[first]))
        rise = (np.where(y1[second] > y1[first], y1[second], y1[first])
                - np.where(y0[second] < y0[first], y0[second], y0[first]))
        areas = (span * rise - width[first] * height[first]) - width[second] * height[second]
    if not np.isfinite(areas).all():
        # NaN sorts apart in numpy and compares false in a heap: pair by pair there.
        queue = [(False, _wasted_area(a, b), i, j) for i, a in enumerate(boxes)
                 for j, b in enumerate(boxes[i + 1:], start=i + 1)]
        heapq.heapify(queue)
        return queue
    order = np.lexsort((second, first, areas))
    return list(zip(itertools.repeat(False), areas[order].tolist(), first[order].tolist(),
                    second[order].tolist()))


def _is_vertical(element: _Element) -> bool:
    return isinstance(element, LTTextBoxVertical | LTTextGroupTBRL)


class RightToLeftGroup(LTTextGroupLRTB):
    """A group of boxes on a right-to-left page, read from the top right: a short heading
    set flush right comes before the lines under it, as a short flush-left heading does
    on a left-to-right page."""

    def analyze(self, laparams: LAParams) -> None:
        super().analyze(laparams)
        flow = laparams.boxes_flow if laparams.boxes_flow is not None else 0.5
        self._objs.sort(key=lambda obj: -(1 - flow) * obj.x1 - (1 + flow) * (obj.y0 + obj.y1))


def mostly_right_to_left(boxes: Sequence[LTTextBox]) -> bool:
    """Whether the first lines of the boxes are mostly in a right-to-left script."""
    return is_right_to_left("".join(box._objs[0].get_text() for box in boxes if box._objs))


def group_boxes_stably(container: LTLayoutContainer,
                       boxes: Sequence[LTTextBox]) -> list[LTTextGroup]:
    """Agglomerate text boxes into one tree, closest pair first; a pair with another
    element between them waits until nothing closer is left. Ties go to the pair made
    first. On a right-to-left page groups read from the right."""
    horizontal = RightToLeftGroup if mostly_right_to_left(boxes) else LTTextGroupLRTB
    plane: Plane[_Element] = Plane(container.bbox)
    made = itertools.count()
    serial: dict[int, int] = {}
    merged: set[int] = set()
    elements: dict[int, _Element] = {}

    def register(element: _Element) -> int:
        number = next(made)
        serial[id(element)] = number
        elements[number] = element
        return number

    for box in boxes:
        register(box)
    queue = _first_pairs(boxes)
    plane.extend(boxes)
    while queue:
        blocked_checked, distance, a, b = heapq.heappop(queue)
        if a in merged or b in merged:
            continue
        first, second = elements[a], elements[b]
        if not blocked_checked:
            rect = (min(first.x0, second.x0), min(first.y0, second.y0),
                    max(first.x1, second.x1), max(first.y1, second.y1))
            if any(other is not first and other is not second for other in plane.find(rect)):
                heapq.heappush(queue, (True, distance, a, b))
                continue
        group: LTTextGroup = (LTTextGroupTBRL([first, second])
                              if _is_vertical(first) or _is_vertical(second)
                              else horizontal([first, second]))
        plane.remove(first)
        plane.remove(second)
        merged.update((a, b))
        number = register(group)
        for other in plane:
            heapq.heappush(queue, (False, _wasted_area(group, other), number,
                                   serial[id(other)]))
        plane.add(group)
    return list(plane)


class StablePage(LineGrouping, LTPage):
    def group_textboxes(self, laparams: LAParams, boxes: Sequence[LTTextBox]
                        ) -> list[LTTextGroup]:
        return group_boxes_stably(self, boxes)


class StableFigure(LineGrouping, LTFigure):
    def group_textboxes(self, laparams: LAParams, boxes: Sequence[LTTextBox]
                        ) -> list[LTTextGroup]:
        return group_boxes_stably(self, boxes)
