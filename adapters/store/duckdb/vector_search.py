"""Vector search in the DuckDB store: the HNSW index where one is built; else a scan of
the vectors table the first time after a write, and the space's vectors loaded as one
matrix (`vector_matrix.py`) for the searches after it."""

from __future__ import annotations

import threading
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


class VectorSearch:
    """Snippet ids by cosine to a vector, with what this process keeps between searches:
    each (space, dimension)'s vectors as a matrix, dropped by every write; the keys
    searched once by a scan since, whose next search loads the matrix."""

    def __init__(self, connection: DuckDbConnection, hnsw: HnswIndex) -> None:
        self._connection = connection
        self._hnsw = hnsw
        self._matrices: dict[tuple[str, int], VectorMatrix] = {}
        self._scanned: set[tuple[str, int]] = set()
        # Each space's model, read once between writes: every ingest asks for it.
        self._models: dict[str, EmbeddingModel | None] = {}
        self._writes = 0
        self._models_lock = threading.Lock()

    async def model(self, space: str) -> EmbeddingModel | None:
        """The space's embedding model (`SearchIndex.embedding_model`)."""
        with self._models_lock:
            if space in self._models:
                return self._models[space]
            writes = self._writes
        found = await self._connection.read(lambda c: embedding_model(c, space))
        with self._models_lock:
            if self._writes == writes:  # no write committed meanwhile: still true
                self._models[space] = found
        return found

    async def search(self, space: str, model: EmbeddingModel, vector: tuple[float, ...],
                     limit: int, filters: SearchFilters) -> list[tuple[str, float]]:
        """The `SearchIndex.search_vectors` ranking (under the write lock: the matrices
        are kept as a write leaves them)."""
        return await self._connection.run(
            lambda c: self._ranked(c, space, model, vector, limit, filters))

    def after_commit(self) -> None:
        """A write committed: every matrix is stale, and the next search scans again."""
        self._matrices.clear()
        self._scanned.clear()
        self._forget_models()

    def _forget_models(self) -> None:
        with self._models_lock:
            self._writes += 1
            self._models.clear()

    def after_rewrite(self) -> None:
        """The file was rewritten (compaction): the matrices are loaded again."""
        self._matrices.clear()
        self._forget_models()

    def _ranked(self, c: duckdb.DuckDBPyConnection, space: str, model: EmbeddingModel,
                vector: tuple[float, ...], limit: int, filters: SearchFilters
                ) -> list[tuple[str, float]]:
        model.require_same(embedding_model(c, space), space)
        if not has_vectors(c, model.dimension):
            return []
        dimension = model.dimension
        if not self._hnsw.serves(dimension):
            key = (space, dimension)
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
