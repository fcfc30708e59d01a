"""Near-duplicate fingerprints as the DuckDB store keeps them since schema 10 (ADR-0048):
the coordinates that are not zero (about 110 of 1,024 for an abstract), as the gaps
between them (the first from 0: since schema 12, ADR-0050, gaps of about 9 pack into 6
bits where coordinates took 10), and for each a signed level, 1-based, into the
fingerprint's few distinct float32 magnitudes (three on average: a shingle's weight is
1 + log count, then the vector is made unit), where the dense `FLOAT[1024]` took 4 KB
before compression. Their sign bitmaps and their cosine
to a new fingerprint are computed here, with numpy (imported by the first near-duplicate
lookup only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION


def _coordinates(gaps: Sequence[int]) -> np.ndarray:
    return np.cumsum(np.asarray(gaps, dtype=np.intp))


def dense(gaps: Sequence[int], levels: Sequence[int], magnitudes: Sequence[float]
          ) -> np.ndarray:
    """The float32 fingerprint of a stored row."""
    vector = np.zeros(FINGERPRINT_DIMENSION, dtype=np.float32)
    signed = np.asarray(levels, dtype=np.intp)
    values = np.asarray(magnitudes, dtype=np.float32)[np.abs(signed) - 1]
    vector[_coordinates(gaps)] = np.where(signed < 0, -values, values)
    return vector


def sign_bitmaps(gaps: Sequence[int], levels: Sequence[int]) -> tuple[bytes, bytes]:
    """The positive and negative sign bitmaps of a stored row, laid out as
    `fingerprint_signs` lays them out (numpy's `packbits`, coordinate 0 first)."""
    positive = np.zeros(FINGERPRINT_DIMENSION, dtype=bool)
    negative = np.zeros(FINGERPRINT_DIMENSION, dtype=bool)
    signed = np.asarray(levels, dtype=np.intp)
    at = _coordinates(gaps)
    positive[at[signed > 0]] = True
    negative[at[signed < 0]] = True
    return np.packbits(positive).tobytes(), np.packbits(negative).tobytes()


BATCH = 2_000
"""Fingerprints made dense at once (8 MB of float32) when their cosines are computed."""


def cosines(rows: Sequence[tuple[Sequence[int], Sequence[int], Sequence[float]]],
            probe: np.ndarray) -> list[float]:
    """Each stored row's cosine to `probe`, exactly as DuckDB's `array_cosine_similarity`
    over `FLOAT[1024]` computes it, which the lookup answered with before: float32
    products and squares summed one coordinate after another (`cumsum`; `sum` pairs
    terms up and rounds otherwise), then `dot / sqrt(|u|² |v|²)` in float32, held within
    [-1, 1]. The store's tests compare it with DuckDB's own."""
    right = _in_order(probe * probe)[0]
    found: list[float] = []
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        matrix = np.zeros((len(batch), FINGERPRINT_DIMENSION), dtype=np.float32)
        for n, (gaps, levels, magnitudes) in enumerate(batch):
            matrix[n] = dense(gaps, levels, magnitudes)
        dot = _in_order(matrix * probe)
        left = _in_order(matrix * matrix)
        with np.errstate(divide="ignore", invalid="ignore"):
            similarity = (dot / np.sqrt(left * right)).astype(np.float32)
        # As `max(-1, min(s, 1))` in C++: a NaN (a zero vector) comes out as -1.
        similarity = np.where(similarity > 1, np.float32(1), similarity)
        similarity = np.where(similarity >= -1, similarity, np.float32(-1))
        found.extend(float(x) for x in similarity)
    return found


def _in_order(terms: np.ndarray) -> np.ndarray:
    """The float32 sums of the last axis, one term after another."""
    return np.cumsum(np.atleast_2d(terms), axis=1, dtype=np.float32)[:, -1]
