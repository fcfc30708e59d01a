"""The PostgreSQL store's search index: BM25 over the snippets' tsvectors
(`text_ranking`), cosine over pgvector (`vector_tables`, exact below the HNSW
threshold, through the index above it), and the near-duplicate check over the
documents' fingerprints."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ....domain.analysis.chunking import Chunk
from ....domain.search.embeddings import EmbeddingModel
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from . import text_ranking, vector_tables
from .connection import KEPT_SECONDS, PostgresConnection
from .rows import CHUNK_COLUMNS, Connection, chunk_from_row
from .vector_indexes import PostgresVectorIndexes
from .vector_tables import as_array

COMMON_KEPT_SECONDS = 60.0
"""How long a common term's snippet count (counted whole, the one cost of a bounded
query that grows with the store) is reused. Writes do not drop it: a term in more than
the depth's snippets moves by a small fraction of itself in a minute, and its weight in
BM25 (its IDF) by less."""
NEAREST_FINGERPRINTS = 16
"""Near-duplicate candidates read through the fingerprints' HNSW index per ingest."""


class PostgresSearchIndex:
    """Rankings over the current snippets of each space in one database."""

    def __init__(self, connection: PostgresConnection,
                 indexes: PostgresVectorIndexes) -> None:
        self._connection = connection
        self._indexes = indexes
        self._text_stats: dict[str, tuple[float, int, float]] = {}
        connection.when_written(self._text_stats.clear)
        self._common: dict[tuple[str, str], tuple[float, int]] = {}
        """Terms in more snippets than the depth: their counts, until when kept."""
        self.ranking = "bm25"
        """`bm25` (the default: bounded, ADR-0036), `bm25_exact` (every snippet holding
        a query term scored) or `cover_density` (PostgreSQL's ts_rank_cd, measured
        against them in bench/retrieval_cisi.py)."""
        self.depth = text_ranking.DEFAULT_DEPTH
        """Postings read per query term by the bounded BM25."""

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        query = query.replace("\x00", " ")  # a word separator; PostgreSQL text has no NUL

        async def read(c: Connection) -> list[tuple[str, float]]:
            if self.ranking == "cover_density":
                sql, extra = text_ranking.ranked_sql(text_ranking.COVER_DENSITY_SCORES,
                                                     filters)
                params: dict[str, object] = {"query": query, "space": space}
            else:
                snippets, avgdl = await self._snippet_lengths(c, space)
                if snippets == 0:
                    return []
                params = {"query": query, "space": space, "snippets": float(snippets),
                          "avgdl": avgdl, "depth": max(self.depth, limit)}
                if self.ranking == "bm25":
                    rows = await self._bounded(c, space, query, limit, filters, params)
                    if rows is not None:
                        return rows
                # Filters that few of a common term's first postings pass: every
                # snippet holding a query term is ranked instead (as vectors do).
                sql, extra = text_ranking.ranked_sql(text_ranking.BM25_SCORES, filters)
            rows = await (await c.execute(sql, {**params, **extra, "limit": limit})
                          ).fetchall()
            return [(str(r[0]), float(r[1])) for r in rows]

        return await self._connection.on_connection(read, "searching its text")

    async def _bounded(self, c: Connection, space: str, query: str, limit: int,
                       filters: SearchFilters, params: dict[str, object]
                       ) -> list[tuple[str, float]] | None:
        """The bounded BM25's best `limit`; None when filters left it short while a term
        was cut (the full ranking must answer)."""
        now = time.monotonic()
        kept = {term: count for (where, term), (until, count) in self._common.items()
                if where == space and until > now}
        sql, extra = text_ranking.bounded_sql(filters)
        rows = await (await c.execute(sql, {
            **params, **extra, "limit": limit, "kept_terms": list(kept),
            "kept_dfs": list(kept.values())})).fetchall()
        # A UNION keeps no order: the ranking's own (score, then id) again.
        hits = sorted(((str(r[1]), float(r[2])) for r in rows if r[0] == "hit"),
                      key=lambda hit: (-hit[1], hit[0]))
        cut = [(str(r[1]), int(r[2])) for r in rows if r[0] == "cut"]
        for term, count in cut:
            if term not in kept:
                self._common[(space, term)] = (now + COMMON_KEPT_SECONDS, count)
        if len(hits) < limit and not filters.empty and cut:
            return None
        return hits

    async def _snippet_lengths(self, c: Connection, space: str) -> tuple[int, float]:
        """BM25's N and avgdl for the space, from the covering index, reused for
        `KEPT_SECONDS`."""
        now = time.monotonic()
        kept = self._text_stats.get(space)
        if kept is not None and kept[0] > now:
            return kept[1], kept[2]
        row = await (await c.execute(
            "SELECT count(*), coalesce(avg(term_count), 0) FROM chunks WHERE space = %s "
            "AND level = 'snippet'", (space,))).fetchone()
        snippets, avgdl = (int(row[0]), float(row[1])) if row else (0, 0.0)
        self._text_stats[space] = (now + KEPT_SECONDS, snippets, max(avgdl, 1e-9))
        return snippets, max(avgdl, 1e-9)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        async def read(c: Connection) -> list[tuple[str, float]]:
            model.require_same(await vector_tables.embedding_model(c, space), space)
            if not await vector_tables.has_table(c, model.dimension):
                return []
            params = {"probe": as_array(vector), "space": space, "limit": limit}
            sql, extra = vector_tables.search_sql(model.dimension, filters)
            rows = await (await c.execute(sql, {**params, **extra})).fetchall()
            if len(rows) < limit and await self._indexes.indexed(c, model.dimension):
                # The graph search stops after `hnsw.max_scan_tuples` candidates: a small
                # space in a large table, or filters few snippets pass, can come back
                # short. Then the exact ranking of the rows that pass decides.
                sql, extra = vector_tables.search_sql(model.dimension, filters, exact=True)
                rows = await (await c.execute(sql, {**params, **extra})).fetchall()
            # HNSW's iterative scan may hand results slightly out of order.
            return sorted(((str(r[0]), float(r[1])) for r in rows),
                          key=lambda pair: (-pair[1], pair[0]))

        return await self._connection.on_connection(read, "searching its vectors")

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        rows = {r[0]: r for r in await self._connection.rows(
            f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE c.id = ANY(%s) AND c.space = %s",
            (list(dict.fromkeys(chunk_ids)), space))}
        return [chunk_from_row(rows[i]) for i in chunk_ids if i in rows]

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return await self._connection.on_connection(
            lambda c: vector_tables.embedding_model(c, space))

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        params = {"probe": as_array(fingerprint), "space": space, "threshold": threshold,
                  "nearest": NEAREST_FINGERPRINTS}

        async def read(c: Connection) -> list[tuple[str, float]]:
            if await self._indexes.indexed(c, vector_tables.FINGERPRINTS):
                # The nearest few through the index; all of them at the threshold means
                # there may be more, and the exact scan below lists them all.
                rows = await (await c.execute(
                    "SELECT document_id, similarity FROM (SELECT document_id, "
                    "1 - (fingerprint <=> %(probe)s) AS similarity FROM fingerprints "
                    "WHERE space = %(space)s ORDER BY fingerprint <=> %(probe)s "
                    "LIMIT %(nearest)s) f WHERE similarity >= %(threshold)s", params)
                              ).fetchall()
                if len(rows) < NEAREST_FINGERPRINTS:
                    return sorted(((str(r[0]), float(r[1])) for r in rows),
                                  key=lambda pair: (-pair[1], pair[0]))
            rows = await (await c.execute(
                "SELECT document_id, similarity FROM (SELECT document_id, "
                "1 - (fingerprint <=> %(probe)s) AS similarity FROM fingerprints "
                "WHERE space = %(space)s) f WHERE similarity >= %(threshold)s "
                "ORDER BY similarity DESC, document_id", params)).fetchall()
            return [(str(r[0]), float(r[1])) for r in rows]

        return await self._connection.on_connection(read, "looking for near-duplicates")
