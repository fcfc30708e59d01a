"""BM25 search in the DuckDB store: by SQL over the postings the first time after a
change (`text_index.bm25_scores`), then from the space's postings held as arrays
(`postings_matrix.py`) until the next change.

A held matrix is good for the connection generation it was read at: every locked run
that may write moves the generation on (`DuckDbConnection.generation`), so a search never
ranks from arrays older than the last write it could have seen. Loading costs several
scans (1.3 s of CPU at 100k snippets, 4.9M postings), so, as for vectors, a process that
searches a space once after each write (a `sheaf search` process, a search between two
ingests) pays the SQL ranking alone, and the second search loads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import duckdb

from ....domain.search.search_request import SearchFilters
from . import text_index
from .connection import DuckDbConnection
from .query_terms import QueryTerms
from .snippet_ranking import allowed_snippets, top_chunks

# numpy is imported by the first search that loads a matrix, not by opening.
if TYPE_CHECKING:
    from .postings_matrix import PostingsMatrix

INLINE_POSTINGS = 100_000
"""Postings a query may read and still be ranked on the caller's thread (about a
millisecond: each posting's score is computed when the matrix loads)."""
HELD_SPACES = 8
"""Spaces whose postings are held at once; the one loaded longest ago goes first."""


class TextRanking:
    """The `SearchIndex.search_text` ranking, with what this process keeps between
    searches: each space's postings as a matrix with its generation, and the spaces
    ranked by SQL in the current generation, whose next search loads the matrix."""

    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection
        self._matrices: dict[str, tuple[int, PostingsMatrix]] = {}
        self._scanned: dict[str, int] = {}
        self._terms = QueryTerms()
        self._loading = threading.Lock()

    def ranked_at_once(self, space: str, query: str, limit: int, filters: SearchFilters
                       ) -> list[tuple[str, float]] | None:
        """The ranking without a thread, when it needs none: the space's matrix is
        current, no filter, and at most INLINE_POSTINGS postings to read (about a
        millisecond at most); an ASCII query's terms are made without DuckDB, any
        other's by one statement on a free cursor here (about 0.3 ms). None otherwise.
        Handing sub-millisecond work to a thread cost more than the work: on a loaded
        machine, 10-20 ms of waiting for the thread to run, and as long again for the
        event loop to run after it."""
        held = self._matrices.get(space)
        if not filters.empty or held is None or held[0] != self._connection.generation:
            return None
        weights = self._terms.ascii_weights(query)
        if weights is None:
            weights = self._connection.read_now(lambda c: self._terms.weights(c, query))
        if weights is None or held[1].touched(weights) > INLINE_POSTINGS:
            return None
        return held[1].top(weights, limit)

    def ranked(self, c: duckdb.DuckDBPyConnection, space: str, query: str, limit: int,
               filters: SearchFilters) -> list[tuple[str, float]]:
        """The best `limit` (snippet id, BM25) of the space passing `filters`, read on
        the cursor `c`."""
        matrix = self._matrix(c, space)
        if matrix is None:
            return sql_ranking(c, space, query, limit, filters)
        allowed = None if filters.empty else allowed_snippets(c, space, filters)
        return matrix.top(self._terms.weights(c, query), limit, allowed)

    def _matrix(self, c: duckdb.DuckDBPyConnection, space: str) -> PostingsMatrix | None:
        """The space's matrix as of now; None when this search should rank by SQL."""
        generation = self._connection.generation
        held = self._matrices.get(space)
        if held is not None and held[0] == generation:
            return held[1]
        if self._scanned.get(space) != generation:
            self._scanned[space] = generation
            return None
        with self._loading:  # one load at a time; a search waiting for it then uses it
            held = self._matrices.get(space)
            if held is not None and held[0] == generation:
                return held[1]
            from .postings_matrix import PostingsMatrix

            # Read after the generation: a write committing meanwhile leaves this matrix
            # tagged older than the generation it moves to, so the next search reloads.
            matrix = PostingsMatrix.load(c, space)
            self._matrices.pop(space, None)
            self._matrices[space] = (generation, matrix)
            while len(self._matrices) > HELD_SPACES:  # the one loaded longest ago
                del self._matrices[next(iter(self._matrices))]
            return matrix


def sql_ranking(c: duckdb.DuckDBPyConnection, space: str, query: str, limit: int,
                filters: SearchFilters) -> list[tuple[str, float]]:
    """The ranking by SQL over the postings tables: the reference the matrix follows."""
    scores = text_index.bm25_scores(c, space, query)
    if scores is None:
        return []
    return top_chunks(c, *scores, filters, limit)
