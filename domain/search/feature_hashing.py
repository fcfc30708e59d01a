"""Feature hashing: text to a fixed-length vector with no model, deterministic everywhere.

It is lexical, not semantic: texts are near when they share words (unigrams and adjacent
pairs), never because they mean the same thing in other words. CRC-32 is the hash because
it is stable across processes (Python's `hash` is salted) and fast.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Iterable
from itertools import pairwise

from .bm25 import terms

_WORD = re.compile(r"\w+")
FINGERPRINT_DIMENSION = 1024


def hashed_vector(features: Iterable[str], dimension: int) -> tuple[float, ...]:
    """Each feature adds ±(1 + log count) to one coordinate chosen by its hash (the sign
    from another bit, so collisions cancel rather than pile up); unit length.

    Only the coordinates a feature reaches are summed and scaled: the same numbers as
    `unit_vector` of the whole vector (`fsum` is exact whatever zeros it adds, and a zero
    scales to zero), for a few dozen coordinates of a query instead of all of them."""
    reached: dict[int, float] = {}
    for feature, count in Counter(features).items():
        digest = zlib.crc32(feature.encode("utf-8"))
        sign = 1.0 if digest & 0x80000000 else -1.0
        at = digest % dimension
        reached[at] = reached.get(at, 0.0) + sign * (1.0 + math.log(count))
    vector = [0.0] * dimension
    norm = math.sqrt(math.fsum(v * v for v in reached.values()))
    if norm != 0.0:
        for at, value in reached.items():
            vector[at] = value / norm
    return tuple(vector)


def word_features(text: str) -> list[str]:
    """Content words (stopwords out, plural "s" off) and adjacent pairs of them."""
    words = terms(text)
    return words + [f"{a} {b}" for a, b in pairwise(words)]


def shingle_fingerprint(text: str, dimension: int = FINGERPRINT_DIMENSION, size: int = 3
                        ) -> tuple[float, ...]:
    """A document's word `size`-shingles hashed into one vector: two texts that share
    most of their word sequences have a cosine near 1, whatever their topic's words."""
    words = _WORD.findall(text.lower())
    if len(words) < size:
        return hashed_vector([" ".join(words)] if words else [], dimension)
    return hashed_vector((" ".join(words[i:i + size]) for i in range(len(words) - size + 1)),
                         dimension)
