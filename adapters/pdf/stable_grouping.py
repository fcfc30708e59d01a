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
from typing import Any

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


def _first_pair_arrays(boxes: Sequence[LTTextBox]) -> tuple[Any, Any, Any] | None:
    """Every pair of the boxes (numbered in order) with its wasted area, sorted by
    (area, first, second): the areas, firsts and seconds as arrays, the areas worked
    out by the same operations as `_wasted_area`; None where an area is not finite
    (NaN sorts apart in numpy and compares false in a heap)."""
    count = len(boxes)
    x0, y0, x1, y1, width, height = np.array(
        [(b.x0, b.y0, b.x1, b.y1, b.width, b.height) for b in boxes],
        dtype=np.float64).reshape(count, 6).T
    first, second = np.triu_indices(count, k=1)
    with np.errstate(all="ignore"):  # a non-finite area is caught below
        span = (np.where(x1[second] > x1[first], x1[second], x1[first])
                - np.where(x0[second] < x0[first], x0[second], x0[first]))
        rise = (np.where(y1[second] > y1[first], y1[second], y1[first])
                - np.where(y0[second] < y0[first], y0[second], y0[first]))
        areas = (span * rise - width[first] * height[first]) - width[second] * height[second]
    if not np.isfinite(areas).all():
        return None
    order = np.lexsort((second, first, areas))
    return areas[order], first[order], second[order]


def _first_pairs(boxes: Sequence[LTTextBox]) -> list[tuple[bool, float, int, int]]:
    """Every pair of the boxes (numbered in order) with its wasted area, as a heap: the
    pairs sorted by (area, first, second), which is the order they leave a heap in
    (every key differs); pair by pair where an area is not finite."""
    if len(boxes) < 2:
        return []
    arrays = _first_pair_arrays(boxes)
    if arrays is None:
        queue = [(False, _wasted_area(a, b), i, j) for i, a in enumerate(boxes)
                 for j, b in enumerate(boxes[i + 1:], start=i + 1)]
        heapq.heapify(queue)
        return queue
    areas, first, second = arrays
    return list(zip(itertools.repeat(False), areas.tolist(), first.tolist(),
                    second.tolist()))


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


LARGEST_COORDINATE = 1e150
"""Beyond this a wasted area may overflow to infinity (or NaN), whose order numpy and a
heap read otherwise: such pages group on the plane."""


def _inside_plane(bbox: tuple[float, float, float, float], boxes: Sequence[LTTextBox]
                  ) -> bool:
    """Whether pdfminer's `Plane` over `bbox` finds exactly the elements overlapping a
    rectangle around the boxes: every coordinate finite, the boxes within the plane
    (nothing clipped away) and its corner not below zero (where `int()`'s truncation
    makes the grid's cells uneven); and no area can overflow."""
    x0, y0, x1, y1 = bbox
    if not (0 <= x0 <= x1 <= LARGEST_COORDINATE and 0 <= y0 <= y1 <= LARGEST_COORDINATE):
        return False
    return all(x0 <= b.x0 <= b.x1 <= x1 and y0 <= b.y0 <= b.y1 <= y1 for b in boxes)


def _group_over_arrays(boxes: Sequence[LTTextBox], horizontal: type[LTTextGroup]
                       ) -> list[LTTextGroup]:
    """`_group_on_plane` with the elements' boxes in arrays: whether another element
    lies in a pair's rectangle (the plane's `find`, strict overlap) and the wasted areas
    of a new group with every element left (`_wasted_area`, the same operations) are
    each taken over all elements at once. Elements are numbered as made, which is the
    plane's order, so the pairs and their keys are the plane's.

    The pairs are not one heap of all of them (most go stale once one of the two is
    merged): the first pairs and each new group's pairs are runs sorted by their key
    (area, first, second), and a small heap holds each run's first pair still live.
    A pair found blocked waits in a heap of its own, behind every pair not yet checked
    (its key's first item, True, sorts after False). So the live pairs come out in
    the order of the one heap, every key differing."""
    count = len(boxes)
    size = max(2 * count - 1, 0)
    corners = np.zeros((size, 4))  # x0, y0, x1, y1 of each element made
    own_areas = np.zeros(size)  # width * height, as `_wasted_area` takes it
    live = np.zeros(size, dtype=bool)
    elements: list[_Element] = list(boxes)
    for number, box in enumerate(boxes):
        corners[number] = box.x0, box.y0, box.x1, box.y1
        own_areas[number] = box.width * box.height
    live[:count] = True
    x0s, y0s, x1s, y1s = corners.T
    merged = bytearray(size)  # read per pair: a numpy element costs more than a byte
    unchecked, blocked = _Runs(merged), _Runs(merged)
    first = _first_pair_arrays(boxes)
    if first is not None:
        areas, firsts, seconds = first
        own = corners[:count]
        held = _blocked_now(own, np.minimum(own[firsts, :2], own[seconds, :2]),
                            np.maximum(own[firsts, 2:], own[seconds, 2:]), firsts, seconds)
        free = ~held
        blocked.add(areas[held].tolist(), firsts[held].tolist(), seconds[held].tolist())
        unchecked.add(areas[free].tolist(), firsts[free].tolist(), seconds[free].tolist())
    while True:
        pair = unchecked.pop()
        blocked_checked = pair is None
        if pair is None:
            pair = blocked.pop()
            if pair is None:
                break
        distance, a, b = pair
        first, second = elements[a], elements[b]
        if not blocked_checked:
            rx0 = first.x0 if first.x0 <= second.x0 else second.x0
            ry0 = first.y0 if first.y0 <= second.y0 else second.y0
            rx1 = second.x1 if second.x1 > first.x1 else first.x1
            ry1 = second.y1 if second.y1 > first.y1 else first.y1
            inside = live & (x1s > rx0) & (x0s < rx1) & (y1s > ry0) & (y0s < ry1)
            inside[a] = inside[b] = False
            if inside.any():
                blocked.add([distance], [a], [b])
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
            rows = corners[others]
            # The rectangle around the group and each other element: its low corner
            # is the lesser of the two, its high corner the greater (no NaN here).
            low = np.minimum(rows[:, :2], (group.x0, group.y0))
            high = np.maximum(rows[:, 2:], (group.x1, group.y1))
            extent = high - low
            areas_now = ((extent[:, 0] * extent[:, 1] - group.width * group.height)
                         - own_areas[others])
            # By (area, other): `others` ascend, and a stable sort keeps them so.
            order = np.argsort(areas_now, kind="stable")
            areas_now, partners = areas_now[order], others[order]
            held = _blocked_now(rows, low[order], high[order], order, None)
            free = ~held
            kept = int(free.sum())
            blocked.add(areas_now[held].tolist(), [number] * (len(others) - kept),
                        partners[held].tolist())
            unchecked.add(areas_now[free].tolist(), [number] * kept, partners[free].tolist())
        corners[number] = group.x0, group.y0, group.x1, group.y1
        own_areas[number] = group.width * group.height
        live[number] = True
    return [elements[number] for number in np.flatnonzero(live).tolist()]


class _Runs:
    """Pairs of elements held as runs, each sorted by its key (area, first, second),
    with a heap of each run's first pair: `pop` gives the least key of all whose two
    elements are both unmerged, as one heap of every pair would, without popping the
    pairs that went stale one by one from a large heap."""

    __slots__ = ("heads", "merged", "runs")

    def __init__(self, merged: bytearray) -> None:
        self.heads: list[tuple[float, int, int, int]] = []  # (area, first, second, run)
        self.runs: list[list[Any]] = []  # [areas, firsts, seconds, place of the head]
        self.merged = merged

    def add(self, areas: list[float], firsts: list[int], seconds: list[int]) -> None:
        """A run of pairs, already in key order."""
        if areas:
            heapq.heappush(self.heads, (areas[0], firsts[0], seconds[0], len(self.runs)))
            self.runs.append([areas, firsts, seconds, 0])

    def pop(self) -> tuple[float, int, int] | None:
        heads, merged = self.heads, self.merged
        while heads:
            area, a, b, number = heads[0]
            run = self.runs[number]
            areas, firsts, seconds, place = run
            place += 1
            end = len(areas)
            while place < end and (merged[firsts[place]] or merged[seconds[place]]):
                place += 1
            if place < end:
                run[3] = place
                heapq.heapreplace(heads, (areas[place], firsts[place], seconds[place], number))
            else:
                heapq.heappop(heads)
            if not (merged[a] or merged[b]):
                return area, a, b
        return None


BLOCKED_CELLS = 1 << 21
"""Pairs times elements tested at once when pairs are made; past it (pages of hundreds
of boxes, whose arrays would hold millions) each pair is checked when it comes up."""


def _blocked_now(elements: Any, low: Any, high: Any, own: Any, own_other: Any | None
                 ) -> Any:
    """For each pair's rectangle (corners `low`, `high`: (pairs, 2)), whether one of
    `elements` ((n, 4): x0, y0, x1, y1) other than the pair's own (`own`, `own_other`:
    their rows; None where the pair's first is not among them) lies in it, by the
    blocked check's strict overlap; all False past `BLOCKED_CELLS`. A pair blocked when
    made stays blocked while both of its elements are unmerged: the element in its way
    is either left unmerged or merged into a group that covers it, and so is in its
    way still."""
    pairs = len(low)
    if pairs * len(elements) > BLOCKED_CELLS:
        return np.zeros(pairs, dtype=bool)
    x0, y0, x1, y1 = elements.T
    inside = ((x1 > low[:, 0:1]) & (y1 > low[:, 1:2]) & (x0 < high[:, 0:1])
              & (y0 < high[:, 1:2]))
    rows = np.arange(pairs)
    inside[rows, own] = False
    if own_other is not None:
        inside[rows, own_other] = False
    return inside.any(axis=1)


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
