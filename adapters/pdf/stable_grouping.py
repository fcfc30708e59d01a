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
INF = float("inf")


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
    if _inside_plane(container.bbox, boxes):
        return _group_over_arrays(boxes, horizontal)
    return _group_on_plane(container, boxes, horizontal)


def _inside_plane(bbox: tuple[float, float, float, float], boxes: Sequence[LTTextBox]
                  ) -> bool:
    """Whether pdfminer's `Plane` over `bbox` finds exactly the elements overlapping a
    rectangle around the boxes: every coordinate finite, the boxes within the plane
    (nothing clipped away) and its corner not below zero (where `int()`'s truncation
    makes the grid's cells uneven)."""
    x0, y0, x1, y1 = bbox
    if not (0 <= x0 <= x1 < INF and 0 <= y0 <= y1 < INF):
        return False
    return all(x0 <= b.x0 <= b.x1 <= x1 and y0 <= b.y0 <= b.y1 <= y1 for b in boxes)


def _group_over_arrays(boxes: Sequence[LTTextBox], horizontal: type[LTTextGroup]
                       ) -> list[LTTextGroup]:
    """`_group_on_plane` with the elements' boxes in arrays: whether another element
    lies in a pair's rectangle (the plane's `find`, strict overlap) and the wasted areas
    of a new group with every element left (`_wasted_area`, the same operations) are
    each taken over all elements at once. Elements are numbered as made, which is the
    plane's order, so the pairs, their keys and the heap's pops are the plane's."""
    count = len(boxes)
    size = max(2 * count - 1, 0)
    x0s, y0s, x1s, y1s, widths, heights = (np.zeros(size) for _ in range(6))
    live = np.zeros(size, dtype=bool)
    elements: list[_Element] = list(boxes)
    for number, box in enumerate(boxes):
        x0s[number], y0s[number], x1s[number], y1s[number] = box.x0, box.y0, box.x1, box.y1
        widths[number], heights[number] = box.width, box.height
    live[:count] = True
    merged = bytearray(size)  # read per pop: a numpy element costs more than a byte
    queue = _first_pairs(boxes)
    heappop, heappush = heapq.heappop, heapq.heappush
    while queue:
        blocked_checked, distance, a, b = heappop(queue)
        if merged[a] or merged[b]:
            continue
        first, second = elements[a], elements[b]
        if not blocked_checked:
            rx0 = first.x0 if first.x0 <= second.x0 else second.x0
            ry0 = first.y0 if first.y0 <= second.y0 else second.y0
            rx1 = second.x1 if second.x1 > first.x1 else first.x1
            ry1 = second.y1 if second.y1 > first.y1 else first.y1
            inside = live & (x1s > rx0) & (x0s < rx1) & (y1s > ry0) & (y0s < ry1)
            inside[a] = inside[b] = False
            if inside.any():
                heappush(queue, (True, distance, a, b))
                continue
        group: LTTextGroup = (LTTextGroupTBRL([first, second])
                              if _is_vertical(first) or _is_vertical(second)
                              else horizontal([first, second]))
        live[a] = live[b] = False
        merged[a] = merged[b] = 1
        number = len(elements)
        elements.append(group)
        others = np.flatnonzero(live)
        if len(others):
            gx0, gy0, gx1, gy1 = group.x0, group.y0, group.x1, group.y1
            ox0, oy0, ox1, oy1 = x0s[others], y0s[others], x1s[others], y1s[others]
            span = np.where(ox1 > gx1, ox1, gx1) - np.where(ox0 < gx0, ox0, gx0)
            rise = np.where(oy1 > gy1, oy1, gy1) - np.where(oy0 < gy0, oy0, gy0)
            areas = (span * rise - group.width * group.height) - widths[others] * heights[others]
            for area, other in zip(areas.tolist(), others.tolist(), strict=True):
                heappush(queue, (False, area, number, other))
        x0s[number], y0s[number], x1s[number], y1s[number] = (
            group.x0, group.y0, group.x1, group.y1)
        widths[number], heights[number] = group.width, group.height
        live[number] = True
    return [elements[number] for number in np.flatnonzero(live).tolist()]


def _group_on_plane(container: LTLayoutContainer, boxes: Sequence[LTTextBox],
                    horizontal: type[LTTextGroup]) -> list[LTTextGroup]:
    """The grouping on pdfminer's `Plane`, element by element (boxes outside the page,
    coordinates that are not finite)."""
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
