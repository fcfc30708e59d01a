"""The knowledge store on PostgreSQL with pgvector: for a team whose agents share one
knowledge base from many processes and machines (ADR-0020)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from ....application.store.storage import Storage
from ....domain.analysis.chunking import Chunk
from ....domain.document.resolved_content import ContentSource
from ....domain.errors import SheafError
from ....domain.search.embeddings import EmbeddingModel
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.ingestion import SpacePolicy
from ....domain.store.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SpaceCount,
    StoreStatus,
)
from ....domain.values.value_codec import from_plain
from ..store_rows import citations_from_rows
from . import text_ranking, vector_tables
from .connection_errors import (
    connection_error,
    operation_error,
)
from .location import shown_location
from .rows import (
    CHUNK_COLUMNS,
    Connection,
    chunk_from_row,
    documents_by_id,
)
from .schema import SCHEMA_VERSION, migrate
from .vector_tables import as_array

T = TypeVar("T")
TEXT_STATS_SECONDS = 5.0
"""How long a space's snippet count and mean length (BM25's N and avgdl) are reused
before they are read again; this process's own writes drop them at once. Other
processes' writes shift them by a fraction of a percent in that time."""
CONNECT_TIMEOUT = 10.0
NEAREST_FINGERPRINTS = 16
"""Near-duplicate candidates read through the fingerprints' HNSW index per ingest."""


class PostgresKnowledgeStore:
    """Every space in one PostgreSQL database (with the pgvector extension). Open it
    with `await PostgresKnowledgeStore.connect(url)`; the URL and the PG* variables
    follow libpq. Any number of processes may use one database at once."""

    def __init__(self, url: str, pool: AsyncConnectionPool[Any]) -> None:
        self.url = url
        self.location = shown_location(url)
        self._pool = pool
        self._text_stats: dict[str, tuple[float, int, float]] = {}
        self._hnsw: dict[int | str, tuple[float, bool]] = {}
        self.ranking = "bm25"
        """`bm25` (the default) or `cover_density` (PostgreSQL's ts_rank_cd, measured
        against it in bench/retrieval_cisi.py)."""

    @classmethod
    async def connect(cls, url: str, *, min_size: int = 1, max_size: int = 8
                      ) -> PostgresKnowledgeStore:
        """Connect, migrate the schema (creating the vector extension when it is
        missing) and open a pool of `min_size` to `max_size` connections."""
        location = shown_location(url)
        try:
            first = await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT))
        except psycopg.Error as exc:
            raise connection_error(exc, location) from None
        try:
            try:
                await migrate(first, location)
            except psycopg.Error as exc:
                raise operation_error(exc, location, "migrating its schema") from None
        finally:
            await first.close()
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False,
            kwargs={"autocommit": True}, configure=_configure, timeout=CONNECT_TIMEOUT)
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except (psycopg.Error, PoolTimeout) as exc:
            await pool.close()
            raise connection_error(psycopg.OperationalError(str(exc)), location) from None
        return cls(url, pool)

    # -- plumbing --------------------------------------------------------------------
    async def _on_connection(self, work: Callable[[Connection], Awaitable[T]],
                             doing: str = "reading") -> T:
        try:
            async with self._pool.connection() as c:
                return await work(c)
        except SheafError:
            raise
        except (psycopg.Error, PoolTimeout) as exc:
            raise operation_error(psycopg.OperationalError(str(exc))
                                  if isinstance(exc, PoolTimeout) else exc,
                                  self.location, doing) from None

    async def _rows(self, sql: str, params: Sequence[object] | dict[str, object] = ()
                    ) -> list[tuple[Any, ...]]:
        async def read(c: Connection) -> list[tuple[Any, ...]]:
            return await (await c.execute(sql, params)).fetchall()

        return await self._on_connection(read)

    def _written(self) -> None:
        self._text_stats.clear()
        self._hnsw.clear()

    # -- catalogue -------------------------------------------------------------------
    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        if "\x00" in reference:
            return None  # no stored name holds NUL: PostgreSQL text cannot

        async def read(c: Connection) -> DocumentRecord | None:
            row = await (await c.execute(
                "SELECT id FROM documents WHERE space = %(s)s AND (id = %(r)s OR "
                "caller_source_id = %(r)s) UNION ALL SELECT document_id FROM sources "
                "WHERE space = %(s)s AND (key = %(r)s OR original = %(r)s OR "
                "final_url = %(r)s) LIMIT 1", {"s": space, "r": reference})).fetchone()
            if row is None:
                return None
            found = await documents_by_id(c, [row[0]])
            return found[0] if found else None

        return await self._on_connection(read)

    async def documents(self, space: str) -> list[DocumentRecord]:
        async def read(c: Connection) -> list[DocumentRecord]:
            ids = [r[0] for r in await (await c.execute(
                "SELECT id FROM documents WHERE space = %s ORDER BY updated_at DESC, id",
                (space,))).fetchall()]
            return await documents_by_id(c, ids)

        return await self._on_connection(read)

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        rows = await self._rows("SELECT s.structure FROM version_structure s JOIN versions v "
                                "ON v.id = s.version_id WHERE s.version_id = %s AND "
                                "v.space = %s", (version_id, space))
        return from_plain(StoredStructure, json.loads(rows[0][0])) if rows else None

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        rows = await self._rows(
            f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE version_id = %s AND space = %s "
            "ORDER BY start_offset, level = 'snippet', idx", (version_id, space))
        return tuple(chunk_from_row(r) for r in rows)

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        if not document_ids:
            return {}
        rows = await self._rows(
            "SELECT d.id, v.title, s.space, s.key, s.kind, s.document_id, s.fetched_sha, "
            "s.original, s.final_url FROM documents d JOIN versions v "
            "ON v.id = d.current_version LEFT JOIN sources s ON s.document_id = d.id "
            "WHERE d.id = ANY(%s) AND d.space = %s ORDER BY d.id, s.seen_at, s.key",
            (list(dict.fromkeys(document_ids)), space))
        return citations_from_rows(rows)

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        wanted = sorted(set(hashes))
        if not wanted:
            return set()
        used = {str(r[0]) for r in await self._rows(
            "SELECT h FROM unnest(%s::text[]) h WHERE EXISTS (SELECT 1 FROM versions "
            "WHERE fetched_sha = h) OR EXISTS (SELECT 1 FROM versions WHERE content_sha = h) "
            "OR EXISTS (SELECT 1 FROM versions WHERE markdown_sha = h)", (wanted,))}
        return set(wanted) - used

    async def status(self) -> StoreStatus:
        rows = await self._rows(
            "SELECT d.space, count(*), (SELECT count(*) FROM versions v WHERE "
            "v.space = d.space), (SELECT count(*) FROM sources s WHERE s.space = d.space) "
            "FROM documents d GROUP BY d.space ORDER BY d.space")
        last = await self._rows("SELECT max(seen_at) FROM sources")
        return StoreStatus(self.location, SCHEMA_VERSION,
                           tuple(SpaceCount(str(r[0]), int(r[1]), int(r[2]), int(r[3]))
                                 for r in rows),
                           last[0][0] if last and last[0][0] else None)

    # -- search index ----------------------------------------------------------------
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
                sql, extra = text_ranking.ranked_sql(text_ranking.BM25_SCORES, filters)
                params = {"query": query, "space": space, "snippets": float(snippets),
                          "avgdl": avgdl}
            rows = await (await c.execute(sql, {**params, **extra, "limit": limit})
                          ).fetchall()
            return [(str(r[0]), float(r[1])) for r in rows]

        return await self._on_connection(read, "searching its text")

    async def _snippet_lengths(self, c: Connection, space: str) -> tuple[int, float]:
        """BM25's N and avgdl for the space, from the covering index, reused for
        `TEXT_STATS_SECONDS`."""
        now = time.monotonic()
        kept = self._text_stats.get(space)
        if kept is not None and kept[0] > now:
            return kept[1], kept[2]
        row = await (await c.execute(
            "SELECT count(*), coalesce(avg(term_count), 0) FROM chunks WHERE space = %s "
            "AND level = 'snippet'", (space,))).fetchone()
        snippets, avgdl = (int(row[0]), float(row[1])) if row else (0, 0.0)
        self._text_stats[space] = (now + TEXT_STATS_SECONDS, snippets, max(avgdl, 1e-9))
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
            if len(rows) < limit and await self._indexed(c, model.dimension):
                # The graph search stops after `hnsw.max_scan_tuples` candidates: a small
                # space in a large table, or filters few snippets pass, can come back
                # short. Then the exact ranking of the rows that pass decides.
                sql, extra = vector_tables.search_sql(model.dimension, filters, exact=True)
                rows = await (await c.execute(sql, {**params, **extra})).fetchall()
            # HNSW's iterative scan may hand results slightly out of order.
            return sorted(((str(r[0]), float(r[1])) for r in rows),
                          key=lambda pair: (-pair[1], pair[0]))

        return await self._on_connection(read, "searching its vectors")

    async def _indexed(self, c: Connection, dimension: int | str) -> bool:
        """Whether the dimension's vectors have an HNSW index (looked up at most every
        `TEXT_STATS_SECONDS`)."""
        now = time.monotonic()
        kept = self._hnsw.get(dimension)
        if kept is None or kept[0] <= now:
            kept = (now + TEXT_STATS_SECONDS,
                    bool(await vector_tables.hnsw_state(c, dimension)))
            self._hnsw[dimension] = kept
        return kept[1]

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        rows = {r[0]: r for r in await self._rows(
            f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE c.id = ANY(%s) AND c.space = %s",
            (list(dict.fromkeys(chunk_ids)), space))}
        return [chunk_from_row(rows[i]) for i in chunk_ids if i in rows]

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return await self._on_connection(lambda c: vector_tables.embedding_model(c, space))

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        params = {"probe": as_array(fingerprint), "space": space, "threshold": threshold,
                  "nearest": NEAREST_FINGERPRINTS}

        async def read(c: Connection) -> list[tuple[str, float]]:
            if await self._indexed(c, vector_tables.FINGERPRINTS):
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

        return await self._on_connection(read, "looking for near-duplicates")

    async def build_vector_index(self, space: str) -> bool:
        """Build the HNSW index over the vectors of the space's model now, whatever
        their number (it is otherwise built when they reach `HNSW_THRESHOLD`). False
        when the space has no vectors or they are too wide for HNSW."""
        async def build(c: Connection) -> bool:
            model = await vector_tables.embedding_model(c, space)
            self._hnsw.clear()
            return model is not None and await vector_tables.build_hnsw(
                c, model.dimension, force=True)

        return await self._on_connection(build, "building a vector index")

    async def drop_vector_index(self, space: str) -> None:
        async def drop(c: Connection) -> None:
            model = await vector_tables.embedding_model(c, space)
            if model is not None:
                await c.execute(f"DROP INDEX CONCURRENTLY IF EXISTS "
                                f"{vector_tables.table(model.dimension)}_hnsw")
            self._hnsw.clear()

        await self._on_connection(drop, "dropping a vector index")

    async def index_vectors_when_due(self, dimensions: Collection[int | str]) -> None:
        """After writes of vectors of these dimensions (or of fingerprints): build a
        table's HNSW index once it holds `HNSW_THRESHOLD` rows."""
        for dimension in sorted(dimensions, key=str):
            async def build(c: Connection, dimension: int | str = dimension) -> bool:
                return await vector_tables.build_hnsw(c, dimension)

            await self._on_connection(build, "building a vector index")

    # -- policies and answers --------------------------------------------------------
    async def policy(self, space: str) -> SpacePolicy:
        rows = await self._rows("SELECT ingestion_enabled, max_bytes, allowed_kinds, enrich "
                                "FROM spaces WHERE name = %s", (space,))
        if not rows:
            return SpacePolicy()
        enabled, max_bytes, kinds, enrich = rows[0]
        return SpacePolicy(bool(enabled), int(max_bytes),
                           frozenset(ContentSource(k) for k in str(kinds).split(",") if k),
                           frozenset(e for e in str(enrich or "").split(",") if e))

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        kinds = ",".join(sorted(k.value for k in policy.allowed_kinds))
        await self._rows(
            "INSERT INTO spaces VALUES (%s, %s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
            "ingestion_enabled = excluded.ingestion_enabled, max_bytes = excluded.max_bytes, "
            "allowed_kinds = excluded.allowed_kinds, enrich = excluded.enrich RETURNING 1",
            (space, policy.ingestion_enabled, policy.max_bytes, kinds,
             ",".join(sorted(policy.enrich))))

    async def cached_text(self, key: str) -> str | None:
        rows = await self._rows("SELECT value FROM enrichment_cache WHERE key = %s", (key,))
        return str(rows[0][0]) if rows else None

    async def cache_text(self, key: str, value: str) -> None:
        await self._rows("INSERT INTO enrichment_cache VALUES (%s, %s, %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value, created_at = "
                         "excluded.created_at RETURNING 1",
                         (key, value, datetime.now(UTC)))

    # -- lifetime --------------------------------------------------------------------
    def storage(self) -> Storage:
        """This store's ports, as the use cases take them."""
        from .unit_of_work import PostgresUnitOfWork

        return Storage(lambda: PostgresUnitOfWork(self), self, self, self, self, self.aclose)

    async def aclose(self) -> None:
        await self._pool.close()


async def _configure(connection: psycopg.AsyncConnection[Any]) -> None:
    """Each pooled connection: numpy arrays as `vector`, and the HNSW search settings
    (an iterative scan, so filters that reject the nearest rows still fill the top k)."""
    await register_vector_async(connection)
    await connection.execute(f"SET hnsw.ef_search = {vector_tables.EF_SEARCH}")
    await connection.execute("SET hnsw.iterative_scan = relaxed_order")
