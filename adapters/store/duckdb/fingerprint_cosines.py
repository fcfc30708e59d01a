"""Near-duplicate fingerprints as the DuckDB store keeps them since schema 10 (ADR-0048):
the coordinates that are not zero (about 110 of 1,024 for an abstract), and for each a
signed level, 1-based, into the fingerprint's few distinct float32 magnitudes (three on
average: a shingle's weight is 1 + log count, then the vector is made unit), where the
dense `FLOAT[1024]` took 4 KB before compression. Their sign bitmaps and their cosine
to a new fingerprint are computed here, with numpy (imported by the first near-duplicate
lookup only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION


def dense(coordinates: Sequence[int], levels: Sequence[int], magnitudes: Sequence[float]
          ) -> np.ndarray:
    """The float32 fingerprint of a stored row."""
    vector = np.zeros(FINGERPRINT_DIMENSION, dtype=np.float32)
    signed = np.asarray(levels, dtype=np.intp)
    values = np.asarray(magnitudes, dtype=np.float32)[np.abs(signed) - 1]
    vector[np.asarray(coordinates, dtype=np.intp)] = np.where(signed < 0, -values, values)
    return vector


def sign_bitmaps(coordinates: Sequence[int], levels: Sequence[int]) -> tuple[bytes, bytes]:
    """The positive and negative sign bitmaps of a stored row, laid out as
    `fingerprint_signs` lays them out (numpy's `packbits`, coordinate 0 first)."""
    positive = np.zeros(FINGERPRINT_DIMENSION, dtype=bool)
    negative = np.zeros(FINGERPRINT_DIMENSION, dtype=bool)
    signed = np.asarray(levels, dtype=np.intp)
    at = np.asarray(coordinates, dtype=np.intp)
    positive[at[signed > 0]] = True
    negative[at[signed < 0]] = True
    return np.packbits(positive).tobytes(), np.packbits(negative).tobytes()


def cosine(stored: np.ndarray, probe: np.ndarray) -> float:
    """Their cosine exactly as DuckDB's `array_cosine_similarity` over `FLOAT[1024]`
    computes it, which the lookup answered with before: the products, squares and sums in
    float32, summed in coordinate order (a zero term leaves a float sum as it is, so the
    nonzero terms in order give the same sums), then `dot / sqrt(|u|² |v|²)` in float32,
    held within [-1, 1]. The store's tests compare it with DuckDB's own."""
    both = (stored != 0) | (probe != 0)
    dot = _ordered_sum(stored[both] * probe[both])
    left = _ordered_sum(stored[stored != 0] ** 2)
    right = _ordered_sum(probe[probe != 0] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = np.float32(dot / np.sqrt(np.float32(left * right)))
    return float(max(np.float32(-1.0), min(similarity, np.float32(1.0))))


def _ordered_sum(terms: np.ndarray) -> np.float32:
    """A float32 sum taken one term after another (`sum` pairs them up, and rounds
    otherwise)."""
    if len(terms) == 0:
        return np.float32(0.0)
    return np.float32(np.cumsum(terms, dtype=np.float32)[-1])
