"""Boxes on a PDF page: (x0, y0, x1, y1) in points, y growing upwards."""

from __future__ import annotations

from collections.abc import Iterable

Bbox = tuple[float, float, float, float]


def bbox_union(bboxes: Iterable[Bbox]) -> Bbox:
    """The smallest box holding every box of `bboxes` (which must not be empty)."""
    x0s, y0s, x1s, y1s = zip(*bboxes, strict=True)
    return (min(x0s), min(y0s), max(x1s), max(y1s))


def vertical_overlap(a: Bbox, b: Bbox) -> float:
    """How much of the lower of the two boxes' heights they share, 0 to 1: 1 when one
    spans the other's height, 0 when one is wholly above the other."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    smaller = min(a[3] - a[1], b[3] - b[1])
    return max(0.0, shared) / smaller if smaller > 0 else float(shared >= 0)
