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

from collections.abc import Mapping

import duckdb
import numpy as np

from ....domain.search.bm25 import K1, B

K1_PLUS_1 = K1 + 1
"""BM25's numerator constant, as the SQL ranking writes it: a literal (exact in binary,
so the same double as the sum)."""
ORDERED_FROM = 4096
"""A term in at least this many postings, asked alone a second time, keeps its postings'
ranking: each query of it alone after that reads its first k (a common word at 100k
snippets, ~90k postings, costs 0.8 ms to rank by partition, 10 ms to sort once). The
first ask ranks by partition: most words are asked once."""


class PostingsMatrix:
    """A space's snippets (chunk ids, lengths), its terms, and each term's postings
    (snippet positions, term frequencies) as one slice of two arrays."""

    def __init__(self, chunk_ids: list[str], lengths: np.ndarray, docs: int, length: int,
                 terms: dict[str, int], starts: np.ndarray, frequencies: np.ndarray,
                 positions: np.ndarray, term_frequencies: np.ndarray,
                 id_ranks: np.ndarray) -> None:
        self.chunk_ids = chunk_ids
        average = length / max(docs, 1)
        # The per-snippet part of BM25's denominator, as the SQL computes it per posting.
        norms = K1 * ((1 - B) + B * lengths / max(average, 1e-9))
        # Each term's idf from the space's N and the term's posting count (orphans
        # included, as the SQL counts them), as the SQL's ln((N - df + 0.5) / (df + 0.5) + 1).
        idfs = np.log((docs - frequencies + 0.5) / (frequencies + 0.5) + 1)
        # Each posting's score for a query holding its term once, computed once here in
        # the SQL's order (idf * tf * (k1 + 1) / (tf + norm)): a query then adds slices of it,
        # the work of a common word a gather instead of five vector operations.
        per_posting = np.repeat(idfs, np.diff(starts))
        self._impacts = per_posting * term_frequencies * K1_PLUS_1 / (
            term_frequencies + norms[positions])
        # A term in more postings than the space has snippets (orphans counted) scores
        # zero or less: only then is a positive sum not the same as "matched".
        self._nonpositive = idfs <= 0
        self._terms = terms
        self._starts = starts
        self._positions = positions
        self._id_ranks = id_ranks
        self._by_id: dict[str, int] | None = None
        # Term: its slice's order, best first, ties by id (4 bytes a posting of the terms
        # asked alone, at most as much again as the positions).
        self._orders: dict[int, np.ndarray] = {}
        self._asked: set[int] = set()  # terms of ORDERED_FROM postings asked alone once

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
        """How many postings ranking `weights` reads (what its time follows): none for
        one term whose ranking is kept."""
        found = [(i, w) for t, w in weights.items() if (i := self._terms.get(t)) is not None]
        if len(found) == 1 and found[0][1] == 1 and found[0][0] in self._orders:
            return 0
        return sum(int(self._starts[i + 1] - self._starts[i]) for i, _ in found)

    def top(self, weights: Mapping[str, int], limit: int, allowed: set[str] | None = None
            ) -> list[tuple[str, float]]:
        """The `limit` best (chunk id, BM25) of the snippets holding a term of `weights`
        (term: how often the query has it), best first, ties by id; only `allowed` ids
        when given."""
        found = sorted((self._terms[t], w) for t, w in weights.items() if t in self._terms)
        slices = [(int(self._starts[t]), int(self._starts[t + 1]), w) for t, w in found]
        slices = [(start, end, w) for start, end, w in slices if start < end]
        if not slices or limit < 1:
            return []
        if len(slices) == 1 and allowed is None and slices[0][2] == 1 \
                and slices[0][1] - slices[0][0] >= ORDERED_FROM:
            # Scaling by a weight could round two scores equal: only weight 1 is read so.
            term = found[0][0]
            if term in self._orders or term in self._asked:
                return self._best_of_term(term, slices[0][0], slices[0][1], limit)
            self._asked.add(term)
        if len(slices) == 1:
            # One term: its postings are the candidates, each snippet once, scored as is.
            start, end, weight = slices[0]
            candidates = self._positions[start:end]
            values = self._impacts[start:end] * weight if weight != 1 \
                else self._impacts[start:end]
            if allowed is not None:
                keep = self._mask(allowed)[candidates]
                candidates, values = candidates[keep], values[keep]
        else:
            # Every term's slice gathered at once, then summed per snippet in term order
            # (as adding slice after slice would): the same work for 2 terms or 40.
            starts = np.array([start for start, _, _ in slices], dtype=np.int64)
            counts = np.array([end - start for start, end, _ in slices], dtype=np.int64)
            offsets = np.cumsum(counts) - counts
            at = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - offsets,
                                                                         counts)
            positions = self._positions[at]
            impacts = self._impacts[at]
            if any(w != 1 for _, _, w in slices):
                impacts = impacts * np.repeat(np.array([w for _, _, w in slices],
                                                       dtype=np.float64), counts)
            scores = np.bincount(positions, weights=impacts, minlength=len(self.chunk_ids))
            if self._nonpositive[[t for t, _ in found]].any():
                matched = np.bincount(positions, minlength=len(self.chunk_ids)) > 0
            else:  # every posting scores above zero: matched is positive
                matched = scores > 0
            if allowed is not None:
                matched &= self._mask(allowed)
            candidates = np.flatnonzero(matched)
            values = scores[candidates]
        return self._best(candidates, values, limit)

    def _best_of_term(self, term: int, start: int, end: int, limit: int
                      ) -> list[tuple[str, float]]:
        """The `limit` best postings of one term, from its kept order."""
        order = self._orders.get(term)
        if order is None:
            positions = self._positions[start:end]
            order = np.lexsort((self._id_ranks[positions], -self._impacts[start:end])
                               ).astype(np.int32)
            self._orders[term] = order  # the same array whichever thread makes it first
        best = order[:limit] + start
        return [(self.chunk_ids[i], float(v)) for i, v in zip(
            self._positions[best].tolist(), self._impacts[best].tolist(), strict=True)]

    def _best(self, candidates: np.ndarray, values: np.ndarray, limit: int
              ) -> list[tuple[str, float]]:
        """The `limit` best of `candidates` (snippet positions) scoring `values`, best
        first, exact ties by chunk id."""
        if len(candidates) == 0:
            return []
        if len(candidates) > limit:
            # Every candidate scoring at least the limit-th best, ties included, then
            # ordered exactly: the boundary's ties are settled by id, not by position.
            kth = np.partition(values, len(values) - limit)[len(values) - limit]
            keep = values >= kth
            candidates, values = candidates[keep], values[keep]
        order = np.lexsort((self._id_ranks[candidates], -values))[:limit]
        return [(self.chunk_ids[i], float(v))
                for i, v in zip(candidates[order].tolist(), values[order].tolist(),
                                strict=True)]

    def _mask(self, allowed: set[str]) -> np.ndarray:
        if self._by_id is None:
            self._by_id = {chunk_id: i for i, chunk_id in enumerate(self.chunk_ids)}
        mask = np.zeros(len(self.chunk_ids), dtype=bool)
        mask[[self._by_id[i] for i in allowed if i in self._by_id]] = True
        return mask
