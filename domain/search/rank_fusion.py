"""Reciprocal rank fusion: rankings from different scorers combined by rank alone."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

RRF_K = 60


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K
                           ) -> list[tuple[str, float]]:
    """Each id scores the sum of 1 / (k + rank) over the rankings that hold it (rank from
    1). BM25 scores and cosines live on different scales; ranks do not. Ties keep the
    order of first appearance, so the fusion is deterministic."""
    if k < 0:
        raise ValueError("k must be non-negative")
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    # A stable sort, reversed stably: equal scores stay in the order they were first met.
    return sorted(scores.items(), key=itemgetter(1), reverse=True)
