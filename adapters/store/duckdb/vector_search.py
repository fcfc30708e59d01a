"""Vector search in the DuckDB store: the HNSW index where one is built; else a scan of
the vectors table the first time after a write, and the space's vectors loaded as one
matrix (`vector_matrix.py`) for the searches after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from ....domain.search.embeddings import EmbeddingModel
from ....domain.search.search_request import SearchFilters
from .connection import DuckDbConnection
from .hnsw_index import HnswIndex
from .snippet_ranking import allowed_snippets, top_chunks
from .vector_tables import embedding_model, has_vectors, vector_text

# numpy is imported by the first search that loads a matrix, not by opening.
if TYPE_CHECKING:
    from .vector_matrix import VectorMatrix

HNSW_OVERFETCH = 4
INLINE_VECTOR_CELLS = 1_000_000
"""Entries of a held matrix a search may read and still run on the caller's thread: a
dense product of 2,600 vectors of 384 with the query, or a hashing query's 3-11 rows of
100,000 snippets, a fraction of a millisecond; handing it to the write lock's thread
cost 10-20 ms of waiting on a loaded machine."""


class VectorSearch:
    """Snippet ids by cosine to a vector, with what this process keeps between searches:
    each (space, dimension)'s vectors as a matrix, dropped by every write; the keys
    searched once by a scan since, whose next search loads the matrix."""

    def __init__(self, connection: DuckDbConnection, hnsw: HnswIndex) -> None:
        self._connection = connection
        self._hnsw = hnsw
        self._matrices: dict[tuple[str, int], VectorMatrix] = {}
        # The model stored for each held matrix's space, read when it was loaded.
        self._stored: dict[tuple[str, int], EmbeddingModel | None] = {}
        self._scanned: set[tuple[str, int]] = set()

    async def search(self, space: str, model: EmbeddingModel, vector: tuple[float, ...],
                     limit: int, filters: SearchFilters) -> list[tuple[str, float]]:
        """The `SearchIndex.search_vectors` ranking (under the write lock: the matrices
        are kept as a write leaves them), or on the caller's thread from a small held
        matrix when no write runs: the search then comes before any write to come."""
        key = (space, model.dimension)
        held, stored = self._matrices.get(key), self._stored.get(key, model)
        if held is not None and filters.empty and held.touched(vector) <= INLINE_VECTOR_CELLS \
                and not self._hnsw.serves(model.dimension):
            model.require_same(stored, space)
            # No statement: read_now only makes sure that no write is running.
            ranked = self._connection.read_now(lambda _: held.top(vector, limit))
            if ranked is not None:
                return ranked
        return await self._connection.run(
            lambda c: self._ranked(c, space, model, vector, limit, filters), writes=False)

    def after_commit(self) -> None:
        """A write committed: every matrix is stale, and the next search scans again."""
        self._matrices.clear()
        self._stored.clear()
        self._scanned.clear()

    def after_rewrite(self) -> None:
        """The file was rewritten (compaction): the matrices are loaded again."""
        self._matrices.clear()
        self._stored.clear()

    def _ranked(self, c: duckdb.DuckDBPyConnection, space: str, model: EmbeddingModel,
                vector: tuple[float, ...], limit: int, filters: SearchFilters
                ) -> list[tuple[str, float]]:
        dimension = model.dimension
        key = (space, dimension)
        if key in self._matrices and not self._hnsw.serves(dimension):
            # Held since the last write, with the model then stored: no statement needed.
            model.require_same(self._stored[key], space)
            allowed = None if filters.empty else allowed_snippets(c, space, filters)
            return self._matrices[key].top(vector, limit, allowed)
        stored = embedding_model(c, space)
        model.require_same(stored, space)
        if not has_vectors(c, model.dimension):
            return []
        if not self._hnsw.serves(dimension):
            if key not in self._matrices and key not in self._scanned:
                # Loading the matrix costs several scans (0.4 s against 55 ms at 100k
                # vectors): a process that asks once, or once after each write, scans.
                self._scanned.add(key)
                scores = (f"WITH scored AS (SELECT chunk_id, array_inner_product("
                          f"vector, ?::VARCHAR::FLOAT[{dimension}]) AS score FROM "
                          f"vectors_{dimension} WHERE space = ?)")
                return top_chunks(c, scores, [vector_text(vector), space], filters, limit)
            if key not in self._matrices:
                from .vector_matrix import VectorMatrix

                self._matrices[key] = VectorMatrix.load(c, f"vectors_{dimension}", space,
                                                        dimension)
                self._stored[key] = stored
            allowed = None if filters.empty else allowed_snippets(c, space, filters)
            return self._matrices[key].top(vector, limit, allowed)
        # The HNSW index serves only a plain top-n ordered by the distance, with no
        # other expression of it: over-fetch there, then score and filter outside. The
        # query vector travels as text: a bound list of floats costs ~25 ms a call.
        probe = f"?::VARCHAR::FLOAT[{dimension}]"
        scores = (f"WITH scored AS (SELECT chunk_id, array_inner_product(vector, {probe}) "
                  f"AS score FROM (SELECT chunk_id, space, vector FROM vectors_{dimension} "
                  f"ORDER BY array_negative_inner_product(vector, {probe}) LIMIT ?) "
                  "WHERE space = ?)")
        text = vector_text(vector)
        return top_chunks(c, scores, [text, text, limit * HNSW_OVERFETCH, space],
                          filters, limit)
