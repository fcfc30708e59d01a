"""The near-duplicate lookup's candidate filter: every stored fingerprint's sign bitmaps
and reaches (domain/fingerprint_signs.py) held per space in memory, so an ingest computes
the cosine of only the few fingerprints the filter lets through instead of scanning them
all (at 5,000 documents the scan was the ingest's largest cost, and it grew with them).

Kept current by the unit of work: it hands over what each commit added, and a commit
that removes documents drops everything (loaded again, from the narrow columns only, by
the next lookup). 268 bytes a document (27 MB at 100k documents) where the fingerprints
take 4 KB.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import duckdb
import numpy as np

from sheaf.domain.feature_hashing import FINGERPRINT_DIMENSION
from sheaf.domain.fingerprint_signs import REACH_THRESHOLDS, FingerprintSigns

_WORDS = (FINGERPRINT_DIMENSION + 63) // 64
"""uint64 words per sign bitmap."""


def _popcount(words: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy 2
        return np.asarray(np.bitwise_count(words), dtype=np.int32).sum(axis=1)
    as_bytes = words.view(np.uint8).reshape(len(words), -1)  # numpy 1: a byte table
    return np.asarray(_BYTE_BITS[as_bytes], dtype=np.int32).sum(axis=1)


_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


class _SpaceSigns:
    """One space's rows, in arrays that grow by doubling."""

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


class FingerprintFilter:
    """Per space, the candidate filter of its stored fingerprints; loaded by the first
    lookup in the space, thread-safe (lookups run on reader threads)."""

    def __init__(self) -> None:
        self._spaces: dict[str, _SpaceSigns] = {}
        self._lock = threading.Lock()
        self._generation = 0  # counts changes, so a load that raced one is not kept

    def candidates(self, c: duckdb.DuckDBPyConnection, space: str, signs: FingerprintSigns,
                   new_reach: int, column: int) -> list[str]:
        """The ids of the space's documents whose fingerprint may reach `signs`'s."""
        with self._lock:
            table = self._spaces.get(space)
            generation = self._generation
        if table is None:
            table = _load(c, space)
            with self._lock:
                if self._generation == generation:
                    self._spaces.setdefault(space, table)
                return table.candidates(signs, new_reach, column)
        with self._lock:
            return table.candidates(signs, new_reach, column)

    def added(self, rows: Iterable[tuple[str, str, FingerprintSigns]]) -> None:
        """(document id, space, signs) of fingerprints a commit wrote."""
        with self._lock:
            self._generation += 1
            for document_id, space, signs in rows:
                table = self._spaces.get(space)
                if table is not None:  # a space not loaded yet loads them with the rest
                    table.put(document_id, signs)

    def forget(self) -> None:
        """Drop every space's rows (after a removal or a rewrite of the file)."""
        with self._lock:
            self._generation += 1
            self._spaces.clear()


def _load(c: duckdb.DuckDBPyConnection, space: str) -> _SpaceSigns:
    table = _SpaceSigns()
    for document_id, positive, negative, reaches in c.execute(
            "SELECT document_id, positive, negative, reaches FROM fingerprints "
            "WHERE space = ?", [space]).fetchall():
        table.put(str(document_id), FingerprintSigns(bytes(positive), bytes(negative),
                                                     tuple(int(r) for r in reaches))
                  if positive is not None else None)
    return table
