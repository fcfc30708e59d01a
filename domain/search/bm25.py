"""A small BM25 ranker (k1 1.2, b 0.75, as DuckDB's full-text extension uses), for the
in-memory store; the DuckDB store ranks with its extension."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"\w+")
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in",
    "into", "is", "it", "its", "of", "on", "or", "that", "the", "their", "this", "to", "was",
    "were", "which", "with", "we", "our", "not", "no",
})


def terms(text: str) -> list[str]:
    """Lower-cased words without stopwords, with a plural "s" removed."""
    found = []
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.append(word)
    return found


def bm25_scores(documents: Sequence[str], query: str, k1: float = 1.2, b: float = 0.75
                ) -> list[float]:
    """A score per document; 0 for documents sharing no term with the query."""
    bags = [Counter(terms(d)) for d in documents]
    if not bags:
        return []
    lengths = [sum(bag.values()) for bag in bags]
    average = sum(lengths) / len(lengths) or 1.0
    scores = [0.0] * len(bags)
    # Each query token counts: a term the query repeats weighs more.
    for term, repeats in Counter(terms(query)).items():
        holding = sum(1 for bag in bags if term in bag)
        if not holding:
            continue
        idf = math.log(1 + (len(bags) - holding + 0.5) / (holding + 0.5))
        for i, bag in enumerate(bags):
            tf = bag.get(term, 0)
            if tf:
                scores[i] += repeats * idf * tf * (k1 + 1) / (
                    tf + k1 * (1 - b + b * lengths[i] / average))
    return scores
