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
from .embeddings import unit_vector

_WORD = re.compile(r"\w+")
FINGERPRINT_DIMENSION = 1024


def hashed_vector(features: Iterable[str], dimension: int) -> tuple[float, ...]:
    """Each feature adds ±(1 + log count) to one coordinate chosen by its hash (the sign
    from another bit, so collisions cancel rather than pile up); unit length."""
    vector = [0.0] * dimension
    for feature, count in Counter(features).items():
        digest = zlib.crc32(feature.encode("utf-8"))
        sign = 1.0 if digest & 0x80000000 else -1.0
        vector[digest % dimension] += sign * (1.0 + math.log(count))
    return unit_vector(vector)


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
