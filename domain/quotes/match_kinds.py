"""How a passage was matched to a quote request, and how alike a near passage must be."""

from __future__ import annotations

from ..worded_enum import WordedEnum

FUZZY_THRESHOLD = 0.85
"""The similarity from which a near passage is `located` rather than only the closest."""


class MatchKind(WordedEnum):
    EXACT = "exact"
    TOLERANT = "tolerant"
    """Equal once the tolerated differences (`tolerances.py`) are erased."""
    FUZZY = "fuzzy"
