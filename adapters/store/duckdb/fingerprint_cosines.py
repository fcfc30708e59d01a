"""Near-duplicate fingerprints as the DuckDB store keeps them since schema 10: the
coordinates that are not zero and their float32 weights (ADR-0048), about 130 of 1,024
for an abstract, where the dense `FLOAT[1024]` took 4 KB before compression. Their sign
bitmaps and their cosine to a new fingerprint are computed here, with numpy (imported
by the first near-duplicate lookup only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION


def dense(coordinates: Sequence[int], weights: Sequence[float]) -> np.ndarray:
    """The float32 fingerprint of a stored row."""
    vector = np.zeros(FINGERPRINT_DIMENSION, dtype=np.float32)
    vector[np.asarray(coordinates, dtype=np.intp)] = np.asarray(weights, dtype=np.float32)
    return vector


def sign_bitmaps(coordinates: Sequence[int], weights: Sequence[float]) -> tuple[bytes, bytes]:
    """The positive and negative sign bitmaps of a stored row, laid out as
    `fingerprint_signs` lays them out (numpy's `packbits`, coordinate 0 first)."""
    vector = dense(coordinates, weights)
    return np.packbits(vector > 0).tobytes(), np.packbits(vector < 0).tobytes()


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
