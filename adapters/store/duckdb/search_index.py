"""The DuckDB store's `SearchIndex`: BM25 over its own postings (`text_index.py`), vector
search (`vector_search.py`), snippets by id, and near-duplicate documents by
fingerprint through the in-memory sign filter (`fingerprint_filter.py`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from ....domain.search.embeddings import EmbeddingModel
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from ....domain.store.fingerprint_signs import fingerprint_signs, reach, reach_column
from . import text_index
from .connection import DuckDbConnection
from .fingerprint_filter import FingerprintFilter
from .rows import CHUNK_COLUMNS, chunk_from_row
from .snippet_ranking import top_chunks
from .vector_search import VectorSearch
from .vector_tables import vector_text

if TYPE_CHECKING:  # chunking is imported by the first read of chunks, not by opening
    from ....domain.analysis.chunking import Chunk

PRIMARY_KEY_LOOKUPS = 32
"""Up to this many chunks are fetched through the primary-key index, one parameter each."""
SIMILARITY_SQL = (
    "SELECT document_id, similarity, space FROM (SELECT document_id, space, "
    f"array_cosine_similarity(fingerprint, ?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}]) "
    "AS similarity FROM fingerprints WHERE {where}) WHERE similarity >= ? "
    "ORDER BY similarity DESC, document_id")
"""The fingerprints `{where}` selects, with their cosine to one (its `vector_text`), at
least a threshold; most similar first."""


class DuckDbSearchIndex:
    """Rankings over the current snippets of a space, best first, ties by id."""

    def __init__(self, connection: DuckDbConnection, vectors: VectorSearch,
                 fingerprints: FingerprintFilter) -> None:
        self._connection = connection
        self._vectors = vectors
        self._fingerprints = fingerprints

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            # The index is written with the snippets: a read sees it as it sees them.
            scores = text_index.bm25_scores(c, space, query)
            if scores is None:
                return []
            return top_chunks(c, *scores, filters, limit)

        if not self._connection.full_text_loaded:  # LOADed once, under the write lock
            await self._connection.run(lambda _: None)
        return await self._connection.read(read)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        return await self._vectors.search(space, model, vector, limit, filters)

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        def read(c: duckdb.DuckDBPyConnection) -> list[Chunk]:
            if not chunk_ids:
                return []
            if len(chunk_ids) <= PRIMARY_KEY_LOOKUPS:
                # A short IN list on the primary key is answered from its index (about
                # 2 ms at 100k chunks); any other condition beside it means a full scan.
                found = c.execute(f"SELECT {CHUNK_COLUMNS}, c.space FROM chunks c WHERE "
                                  f"c.id IN ({', '.join('?' * len(chunk_ids))})", list(chunk_ids))
            else:
                # Long lists cost a bound parameter each (400: 52 ms on CISI); as one JSON
                # value joined to the table, 7 ms.
                found = c.execute(f"SELECT {CHUNK_COLUMNS}, c.space FROM (SELECT unnest("
                                  """from_json(?, '["VARCHAR"]')) AS id) w """
                                  "JOIN chunks c ON c.id = w.id", [json.dumps(list(chunk_ids))])
            rows = {r[0]: r for r in found.fetchall()}
            return [chunk_from_row(rows[i]) for i in chunk_ids
                    if i in rows and rows[i][16] == space]

        return await self._connection.read(read)

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return await self._vectors.model(space)

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        # The sign filter (exact: it drops only fingerprints whose cosine is certainly
        # below the threshold) leaves a few candidates, whose cosine DuckDB computes as the
        # scan of every fingerprint did, so the answers are the scan's to the last bit.
        signs = fingerprint_signs(fingerprint)
        new_reach = reach(fingerprint, threshold)
        column = reach_column(threshold)

        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            if column is None:
                rows = c.execute(SIMILARITY_SQL.format(
                    where="space = ?"), [vector_text(fingerprint), space, threshold])
                return [(str(r[0]), float(r[1])) for r in rows.fetchall()]
            candidates = self._fingerprints.candidates(c, space, signs, new_reach, column)
            if not candidates:
                return []
            # An IN list alone on the primary key is looked up through its index.
            found = c.execute(SIMILARITY_SQL.format(
                where=f"document_id IN ({', '.join('?' * len(candidates))})")
                if len(candidates) <= PRIMARY_KEY_LOOKUPS else SIMILARITY_SQL.format(
                where="""document_id IN (SELECT unnest(from_json(?, '["VARCHAR"]')))"""),
                [vector_text(fingerprint), *(candidates if len(candidates) <=
                                             PRIMARY_KEY_LOOKUPS else [json.dumps(candidates)]),
                 threshold]).fetchall()
            return [(str(r[0]), float(r[1])) for r in found if r[2] == space]

        return await self._connection.read(read)
