"""One space's fingerprint sign bitmaps and reaches as numpy arrays, and the candidates
of a lookup among them (see domain/store/fingerprint_signs.py): a popcount over 256 bytes a
document. Imported by the first near-duplicate lookup only: `sheaf list` and a BM25
search do not import numpy."""

from __future__ import annotations

import numpy as np

from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.store.fingerprint_signs import REACH_THRESHOLDS, FingerprintSigns

_WORDS = (FINGERPRINT_DIMENSION + 63) // 64
"""uint64 words per sign bitmap."""


def _popcount(words: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy 2
        return np.asarray(np.bitwise_count(words), dtype=np.int32).sum(axis=1)
    as_bytes = words.view(np.uint8).reshape(len(words), -1)  # numpy 1: a byte table
    return np.asarray(_BYTE_BITS[as_bytes], dtype=np.int32).sum(axis=1)


_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


class FingerprintSignTable:
    """One space's fingerprint signs and reaches, in arrays that grow by doubling."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.positive = np.zeros((0, _WORDS), dtype=np.uint64)
        self.negative = np.zeros((0, _WORDS), dtype=np.uint64)
        self.reaches = np.zeros((0, len(REACH_THRESHOLDS)), dtype=np.int32)

    def put(self, document_id: str, signs: FingerprintSigns | None) -> None:
        row = self.rows.get(document_id)
        if row is None:
            row = len(self.ids)
            if row == len(self.positive):
                grown = max(64, 2 * row)
                self.positive = _grown(self.positive, grown)
                self.negative = _grown(self.negative, grown)
                self.reaches = _grown(self.reaches, grown)
            self.ids.append(document_id)
            self.rows[document_id] = row
        if signs is None:  # no bitmaps stored: always a candidate
            self.positive[row] = 0
            self.negative[row] = 0
            self.reaches[row] = FINGERPRINT_DIMENSION
            return
        self.positive[row] = np.frombuffer(_padded(signs.positive), dtype=">u8")
        self.negative[row] = np.frombuffer(_padded(signs.negative), dtype=">u8")
        self.reaches[row] = signs.reaches

    def candidates(self, signs: FingerprintSigns, new_reach: int, column: int) -> list[str]:
        count = len(self.ids)
        if count == 0:
            return []
        positive = np.frombuffer(_padded(signs.positive), dtype=">u8").astype(np.uint64)
        negative = np.frombuffer(_padded(signs.negative), dtype=">u8").astype(np.uint64)
        differing = _popcount((self.positive[:count] ^ positive)
                              | (self.negative[:count] ^ negative))
        passing = np.flatnonzero(differing <= new_reach + self.reaches[:count, column])
        return [self.ids[i] for i in passing]


def _grown(table: np.ndarray, rows: int) -> np.ndarray:
    grown = np.zeros((rows, table.shape[1]), dtype=table.dtype)
    grown[:len(table)] = table
    return grown


def _padded(bitmap: bytes) -> bytes:
    return bitmap.ljust(_WORDS * 8, b"\0")
