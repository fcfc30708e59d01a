"""Which stored fingerprints could be a near-duplicate of a new one, decided from their
coordinates' signs alone, with no false negative.

For unit vectors u, v with cosine at least t, ||u - v||² = 2 - 2·cos <= 2(1 - t), the
budget. Let D be the coordinates where u and v differ in sign (one of them zero, or
opposite signs). On each such coordinate (u_i - v_i)² >= u_i²·[u_i ≠ 0] + v_i²·[v_i ≠ 0],
so the squares of u over D and of v over D together stay within the budget. Hence u is
nonzero on at most `reach(u)` coordinates of D, the largest number of u's smallest
nonzero squares that fit in the budget, and v on at most `reach(v)`; and
|D| <= reach(u) + reach(v). |D| is a popcount over two bitmaps per vector (its positive
and its negative coordinates), 256 bytes where the fingerprint takes 4,096: a document
whose sign pattern differs from the new one's on more coordinates cannot be its
near-duplicate, and only the rest have their cosine computed.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

import attrs

REACH_THRESHOLDS: tuple[float, ...] = (0.99, 0.98, 0.95, 0.9, 0.8, 0.5)
"""The cosine thresholds a stored fingerprint's reach is kept for. A lookup at threshold t
uses the reach kept for the largest of these at or below t (a looser budget, so still no
false negative); below the smallest, every fingerprint is a candidate."""

_RELATIVE_SLACK = 1e-3
_ABSOLUTE_SLACK = 1e-5
"""Widen every budget a little: fingerprints are stored as float32 and their cosine is
computed in float32, so a cosine reported at t may be t minus a few ulps exactly."""


@attrs.frozen
class FingerprintSigns:
    """A fingerprint's sign bitmaps (coordinate i is bit i, most significant bit first,
    as numpy's `packbits` lays them out) and its reach at each of `REACH_THRESHOLDS`."""

    positive: bytes
    negative: bytes
    reaches: tuple[int, ...]


def budget(threshold: float) -> float:
    """The squared distance, slack included, within which two unit vectors with cosine
    at least `threshold` lie."""
    return 2.0 * (1.0 - threshold) * (1.0 + _RELATIVE_SLACK) + _ABSOLUTE_SLACK


def stored_float32(fingerprint: Sequence[float]) -> array[float]:
    """The fingerprint as the store keeps it (FLOAT): its signs and squares are those."""
    return array("f", fingerprint)


def reach(fingerprint: Sequence[float], threshold: float) -> int:
    """How many nonzero coordinates of the unit-normalised fingerprint can lie where a
    vector with cosine at least `threshold` to it differs in sign: its smallest squares,
    counted while their sum stays within the budget."""
    values = stored_float32(fingerprint)
    return _reaches(sorted(x * x for x in values if x != 0.0), (threshold,))[0]


def _reaches(squares: list[float], thresholds: Sequence[float]) -> tuple[int, ...]:
    """`reach` at each threshold, from the fingerprint's nonzero squares in ascending
    order (sorted once for all thresholds)."""
    norm_squared = math.fsum(squares)
    if norm_squared == 0.0:
        return tuple(0 for _ in thresholds)
    found = []
    for threshold in thresholds:
        limit = budget(threshold) * norm_squared
        total, count = 0.0, 0
        for square in squares:
            total += square
            if total > limit:
                break
            count += 1
        found.append(count)
    return tuple(found)


def fingerprint_signs(fingerprint: Sequence[float]) -> FingerprintSigns:
    """The sign bitmaps and reaches a stored fingerprint is filtered by."""
    values = stored_float32(fingerprint)
    size = (len(values) + 7) // 8
    top = size * 8 - 1
    positive = negative = 0
    squares = []
    for i, x in enumerate(values):
        if x > 0.0:
            positive |= 1 << (top - i)
            squares.append(x * x)
        elif x < 0.0:
            negative |= 1 << (top - i)
            squares.append(x * x)
    squares.sort()
    return FingerprintSigns(positive.to_bytes(size, "big"), negative.to_bytes(size, "big"),
                            _reaches(squares, REACH_THRESHOLDS))


def reach_column(threshold: float) -> int | None:
    """The index in `REACH_THRESHOLDS` of the stored reach a lookup at `threshold` may
    use; None when the threshold is below all of them (every fingerprint a candidate)."""
    usable = [i for i, t in enumerate(REACH_THRESHOLDS) if t <= threshold]
    return min(usable, key=lambda i: threshold - REACH_THRESHOLDS[i]) if usable else None


def differing_signs(a: FingerprintSigns, b: FingerprintSigns) -> int:
    """The number of coordinates where the two fingerprints differ in sign."""
    def bits(x: bytes) -> int:
        return int.from_bytes(x, "big")

    return ((bits(a.positive) ^ bits(b.positive)) | (bits(a.negative) ^ bits(b.negative))
            ).bit_count()


def may_be_near(new: FingerprintSigns, new_reach: int, stored: FingerprintSigns,
                threshold: float) -> bool:
    """False only when the cosine of the two fingerprints is certainly below `threshold`
    (`new_reach` is the new fingerprint's `reach` at that threshold)."""
    column = reach_column(threshold)
    if column is None:
        return True
    return differing_signs(new, stored) <= new_reach + stored.reaches[column]
