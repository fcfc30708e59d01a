"""One space's full-text postings as numpy arrays held by the process, scored without SQL.

The SQL ranking (`text_index.bm25_scores` with `snippet_ranking.top_chunks`) reads the
query terms' postings, counts their document frequencies and sums BM25 in DuckDB: at 100k
snippets 84% of a search's time, and growing with the postings a query touches. Here the
same postings sit in term order (compressed sparse rows: a term's postings are one slice),
and a query's score is a few vector operations per term over its slice, computed in the
order and with the constants the SQL uses, so the scores agree to the last bits or so
(sums may be added in another order) and the ranking is the same: best first, ties by id.

About 12 bytes a posting are held (at 100k snippets of 60 words, 5M postings: ~60 MB),
loaded from one snapshot of the tables; the holder drops it when the store changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import duckdb
import numpy as np

K1 = 1.2
B = 0.75
K1_PLUS_1 = 2.2
"""BM25's constants, as the SQL ranking writes them (2.2 as a literal, not a sum)."""


class PostingsMatrix:
    """A space's snippets (chunk ids, lengths), its terms, and each term's postings
    (snippet positions, term frequencies) as one slice of two arrays."""

    def __init__(self, chunk_ids: list[str], lengths: np.ndarray, docs: int, length: int,
                 terms: dict[str, int], starts: np.ndarray, frequencies: np.ndarray,
                 positions: np.ndarray, term_frequencies: np.ndarray,
                 id_ranks: np.ndarray) -> None:
        self.chunk_ids = chunk_ids
        self._docs = docs
        average = length / max(docs, 1)
        # The per-snippet part of BM25's denominator, as the SQL computes it per posting.
        self._norms = K1 * ((1 - B) + B * lengths / max(average, 1e-9))
        self._terms = terms
        self._starts = starts
        self._frequencies = frequencies
        self._positions = positions
        self._tfs = term_frequencies
        self._id_ranks = id_ranks
        self._by_id: dict[str, int] | None = None

    @classmethod
    def load(cls, c: duckdb.DuckDBPyConnection, space: str) -> PostingsMatrix:
        """The space's postings, read in one transaction (one snapshot) on `c`."""
        c.execute("BEGIN TRANSACTION")
        try:
            totals = c.execute("SELECT docs, length FROM text_spaces WHERE space = ?",
                               [space]).fetchone()
            # Each snippet's place in chunk id order (DuckDB's byte order, Python's
            # code point order: the same), by which ties are broken.
            docs = c.execute("SELECT docid, chunk_id, length, row_number() OVER (ORDER BY "
                             "chunk_id) - 1 AS id_rank FROM text_docs WHERE space = ? "
                             "ORDER BY docid", [space]).fetchnumpy()
            postings = c.execute("SELECT termid, docid, tf FROM text_postings "
                                 "WHERE space = ?", [space]).fetchnumpy()
            vocabulary = c.execute(
                "SELECT termid, term FROM text_terms WHERE termid IN "
                "(SELECT termid FROM text_postings WHERE space = ?)", [space]).fetchnumpy()
        finally:
            c.execute("COMMIT")  # a read: nothing to keep, only the snapshot to end
        termids = np.asarray(postings["termid"], dtype=np.int64)
        # Postings are kept sorted by term (ADR-0021) but for the latest writes: a stable
        # sort of nearly sorted runs is close to one pass.
        order = np.argsort(termids, kind="stable")
        termids = termids[order]
        docids = np.asarray(postings["docid"], dtype=np.int64)[order]
        tfs = np.asarray(postings["tf"], dtype=np.int32)[order]
        unique, first, frequencies = np.unique(termids, return_index=True, return_counts=True)
        doc_ids = np.asarray(docs["docid"], dtype=np.int64)
        positions = np.searchsorted(doc_ids, docids)
        known = positions < len(doc_ids)
        known[known] = doc_ids[positions[known]] == docids[known]
        starts = np.append(first, len(termids)).astype(np.int64)
        if not known.all():
            # A posting whose snippet is gone counts in its term's frequency, as in the
            # SQL (which counts before joining the snippets), but scores nothing.
            kept_before = np.concatenate(([0], np.cumsum(known)))
            starts = kept_before[starts]
            positions, tfs = positions[known], tfs[known]
        at = np.searchsorted(unique, np.asarray(vocabulary["termid"], dtype=np.int64))
        terms = {str(term): int(i) for term, i in zip(vocabulary["term"], at, strict=True)}
        docs_count, length = (int(totals[0]), int(totals[1])) if totals else (0, 0)
        return cls([str(i) for i in docs["chunk_id"]],
                   np.asarray(docs["length"], dtype=np.float64), docs_count, length, terms,
                   starts, frequencies.astype(np.int64), positions.astype(np.int32), tfs,
                   np.asarray(docs["id_rank"], dtype=np.int64))

    def touched(self, weights: Mapping[str, int]) -> int:
        """How many postings ranking `weights` reads (what its time follows)."""
        return sum(int(self._starts[i + 1] - self._starts[i])
                   for i in (self._terms.get(t) for t in weights) if i is not None)

    def top(self, weights: Mapping[str, int], limit: int, allowed: set[str] | None = None
            ) -> list[tuple[str, float]]:
        """The `limit` best (chunk id, BM25) of the snippets holding a term of `weights`
        (term: how often the query has it), best first, ties by id; only `allowed` ids
        when given."""
        found = sorted((self._terms[t], w) for t, w in weights.items() if t in self._terms)
        if not found or limit < 1:
            return []
        scores = np.zeros(len(self.chunk_ids), dtype=np.float64)
        matched = np.zeros(len(self.chunk_ids), dtype=bool)
        for term, weight in found:
            start, end = int(self._starts[term]), int(self._starts[term + 1])
            if start == end:
                continue
            frequency = int(self._frequencies[term])
            positions = self._positions[start:end]
            tfs = self._tfs[start:end]
            idf = math.log((self._docs - frequency + 0.5) / (frequency + 0.5) + 1)
            # A snippet is in a term's slice once: the fancy-indexed add does not collide.
            scores[positions] += weight * idf * tfs * K1_PLUS_1 / (tfs + self._norms[positions])
            matched[positions] = True
        if allowed is not None:
            matched &= self._mask(allowed)
        candidates = np.flatnonzero(matched)
        if len(candidates) == 0:
            return []
        if len(candidates) > limit:
            # Every candidate scoring at least the limit-th best, ties included, then
            # ordered exactly: the boundary's ties are settled by id, not by position.
            values = scores[candidates]
            kth = np.partition(values, len(values) - limit)[len(values) - limit]
            candidates = candidates[values >= kth]
        order = np.lexsort((self._id_ranks[candidates], -scores[candidates]))[:limit]
        best = candidates[order]
        return [(self.chunk_ids[i], float(scores[i])) for i in best]

    def _mask(self, allowed: set[str]) -> np.ndarray:
        if self._by_id is None:
            self._by_id = {chunk_id: i for i, chunk_id in enumerate(self.chunk_ids)}
        mask = np.zeros(len(self.chunk_ids), dtype=bool)
        mask[[self._by_id[i] for i in allowed if i in self._by_id]] = True
        return mask
