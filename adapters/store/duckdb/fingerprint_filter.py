"""The near-duplicate lookup's candidate filter: every stored fingerprint's sign bitmaps
and reaches (domain/store/fingerprint_signs.py) held per space in memory, so an ingest computes
the cosine of only the few fingerprints the filter lets through instead of scanning them
all (at 5,000 documents the scan was the ingest's largest cost, and it grew with them).

Kept current by the unit of work: it hands over what each commit added, and a commit
that removes documents drops everything (loaded again, from the narrow columns only, by
the next lookup, the bitmaps made from the stored coordinates' signs). 268 bytes a
document (27 MB at 100k documents) where the fingerprints took 4 KB.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

import duckdb

from ....domain.store.fingerprint_signs import FingerprintSigns

if TYPE_CHECKING:  # numpy is imported by the first lookup, not by opening the store
    from .fingerprint_sign_table import FingerprintSignTable

LOOP_ROWS = 2_000
"""Fingerprints a lookup may test on the caller's thread: 0.4 ms of CPU for 1,500 on
this machine, 0.7 ms for 2,000; a thread's hand-over costs more than that under load."""


class FingerprintFilter:
    """Per space, the candidate filter of its stored fingerprints; loaded by the first
    lookup in the space, thread-safe (lookups run on reader threads)."""

    def __init__(self) -> None:
        self._spaces: dict[str, FingerprintSignTable] = {}
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

    def held_candidates(self, space: str, signs: FingerprintSigns, new_reach: int,
                        column: int) -> list[str] | None:
        """`candidates` when the space's rows are held already and few enough to test on
        the caller's thread (`LOOP_ROWS`), else None."""
        with self._lock:
            table = self._spaces.get(space)
            if table is None or len(table.ids) > LOOP_ROWS:
                return None
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


def _load(c: duckdb.DuckDBPyConnection, space: str) -> FingerprintSignTable:
    from .fingerprint_cosines import sign_bitmaps
    from .fingerprint_sign_table import FingerprintSignTable

    table = FingerprintSignTable()
    for document_id, gaps, levels, reaches in c.execute(
            "SELECT document_id, coordinate_gaps, levels, reaches FROM fingerprints "
            "WHERE space = ?", [space]).fetchall():
        positive, negative = sign_bitmaps(gaps, levels)
        table.put(str(document_id), FingerprintSigns(positive, negative,
                                                     tuple(int(r) for r in reaches))
                  if reaches is not None else None)
    return table
