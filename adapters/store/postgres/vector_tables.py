"""Vectors in pgvector: one table per dimension (`vector(n)` is a fixed-size type, and
an HNSW index needs one), searched exactly until the table holds `HNSW_THRESHOLD`
vectors, through an HNSW index (cosine) from then on."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import numpy as np
import psycopg

from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.search.search_request import SearchFilters
from .filters import filter_sql

Connection = psycopg.AsyncConnection[tuple[Any, ...]]
logger = logging.getLogger("sheaf.store")

HNSW_THRESHOLD = 20_000
"""Vectors of one dimension from which an HNSW index is built. Below it an exact scan
answers in milliseconds (bench/pgvector_scale.py), and is exact."""
HNSW_MAX_DIMENSION = 2_000
"""pgvector's HNSW indexes `vector` columns of at most this many dimensions; wider
vectors are always searched exactly."""
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
EF_SEARCH = 100
"""`hnsw.ef_search` on every connection: candidates kept while searching the graph.
pgvector's default, 40, gave recall@10 0.848 at 300k snippets against 0.954 for 100, at
4.1 against 8.3 ms (bench/pgvector_scale.py)."""
_TABLES_LOCK = 0x5EAF_0002


def table(dimension: int) -> str:
    return f"vectors_{int(dimension)}"


def as_array(vector: object) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.asarray(vector, dtype=np.float32)


async def embedding_model(c: Connection, space: str) -> EmbeddingModel | None:
    row = await (await c.execute("SELECT model, dimension FROM embedding_models WHERE "
                                 "space = %s", (space,))).fetchone()
    return EmbeddingModel(str(row[0]), int(row[1])) if row else None


async def has_table(c: Connection, dimension: int) -> bool:
    row = await (await c.execute("SELECT to_regclass(%s) IS NOT NULL",
                                 (table(dimension),))).fetchone()
    return bool(row and row[0])


async def vector_tables(c: Connection) -> list[str]:
    return [str(r[0]) for r in await (await c.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND "
        "tablename ~ '^vectors_[0-9]+$' ORDER BY tablename")).fetchall()]


async def delete_vectors(c: Connection, column: str, value: str) -> None:
    assert column in ("version_id", "document_id", "space")
    for name in await vector_tables(c):
        await c.execute(f"DELETE FROM {name} WHERE {column} = %s", (value,))


async def insert_vectors(c: Connection, space: str, version_id: str, document_id: str,
                         vectors: ChunkVectors) -> None:
    """Store the vectors (binary COPY), refusing another model than the space's. The
    model row is claimed before it is read: of two writers giving a new space two
    models, the second waits for the first and is then refused."""
    model = vectors.model
    await c.execute("INSERT INTO embedding_models VALUES (%s, %s, %s) ON CONFLICT (space) "
                    "DO NOTHING", (space, model.name, model.dimension))
    model.require_same(await embedding_model(c, space), space)
    if not vectors.chunk_ids:
        return
    dimension = model.dimension
    name = table(dimension)
    if not await has_table(c, dimension):
        # Two writers creating the same table at once: the second would fail on the
        # catalogue's unique index, so they take turns.
        await c.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_TABLES_LOCK, dimension))
        await c.execute(
            f"CREATE TABLE IF NOT EXISTS {name} (chunk_id TEXT PRIMARY KEY, "
            "version_id TEXT NOT NULL, document_id TEXT NOT NULL, space TEXT NOT NULL, "
            f"embedding vector({dimension}) NOT NULL)")
        for column in ("version_id", "document_id", "space"):
            await c.execute(f"CREATE INDEX IF NOT EXISTS {name}_{column} ON {name} "
                            f"({column})")
    cursor = c.cursor()
    async with cursor.copy(f"COPY {name} (chunk_id, version_id, document_id, space, "
                           "embedding) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["text", "text", "text", "text", "vector"])
        for chunk_id, vector in zip(vectors.chunk_ids, vectors.vectors, strict=True):
            await copy.write_row((chunk_id, version_id, document_id, space, as_array(vector)))


def search_sql(dimension: int, filters: SearchFilters, *, exact: bool = False
               ) -> tuple[str, dict[str, object]]:
    """The nearest `%(limit)s` snippets of `%(space)s` to `%(probe)s` by cosine, passing
    `filters`. Ordered by the distance alone, so an HNSW index serves it (with
    `hnsw.iterative_scan` when filters reject what it finds first); `exact` orders by an
    expression no index serves, so every row that passes is ranked."""
    name = table(dimension)
    joins, conditions = "", ""
    params: dict[str, object] = {}
    if not filters.empty:
        versions, conditions, params = filter_sql(filters)
        joins = f"JOIN chunks c ON c.id = e.chunk_id {versions}"
    order = ("(e.embedding <=> %(probe)s) + 0, e.chunk_id" if exact
             else "e.embedding <=> %(probe)s")
    return (f"SELECT e.chunk_id, 1 - (e.embedding <=> %(probe)s) AS score FROM {name} e "
            f"{joins}WHERE e.space = %(space)s{conditions} "
            f"ORDER BY {order} LIMIT %(limit)s"), params


FINGERPRINTS = "fingerprints"
"""The documents' fingerprints (1,024 dimensions): their HNSW index is made with the
schema (version 3), so the near-duplicate check of an ingest never scans them all."""


async def hnsw_state(c: Connection, vectors: int | str) -> bool | None:
    """True for a valid HNSW index on the vectors of a dimension (or the fingerprints),
    False for one left invalid by an interrupted build, None for none."""
    name = table(vectors) if isinstance(vectors, int) else vectors
    row = await (await c.execute(
        "SELECT i.indisvalid FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid "
        "WHERE x.relname = %s AND x.relnamespace = current_schema()::regnamespace",
        (f"{name}_hnsw",))).fetchone()
    return None if row is None else bool(row[0])


async def build_hnsw(c: Connection, dimension: int, *, force: bool = False) -> bool:
    """Build the HNSW index of a dimension's vectors when the table has reached
    `HNSW_THRESHOLD` rows (any number with `force`), on an autocommit connection: built
    CONCURRENTLY, so writers go on meanwhile. One process builds, under an advisory
    lock; the others go on without waiting. True when the index exists afterwards."""
    if dimension > HNSW_MAX_DIMENSION or not await has_table(c, dimension):
        return False
    name, lock = table(dimension), -dimension
    state = await hnsw_state(c, name)
    if state:
        return True
    if not force:
        row = await (await c.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {name} LIMIT %s) s",
            (HNSW_THRESHOLD,))).fetchone()
        if row is None or int(row[0]) < HNSW_THRESHOLD:
            return False
    got = await (await c.execute("SELECT pg_try_advisory_lock(%s, %s)",
                                 (_TABLES_LOCK, lock))).fetchone()
    if not got or not got[0]:
        return False
    try:
        if await hnsw_state(c, name) is False:  # an interrupted build's leftover
            await c.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}_hnsw")
        logger.info("building the HNSW index of %s", name)
        await c.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name}_hnsw ON {name} "
                        f"USING hnsw (embedding vector_cosine_ops) WITH (m = {HNSW_M}, "
                        f"ef_construction = {HNSW_EF_CONSTRUCTION})")
    finally:
        # A session lock outlives a cancelled task on a pooled connection: released
        # even then.
        with anyio.CancelScope(shield=True):
            await c.execute("SELECT pg_advisory_unlock(%s, %s)", (_TABLES_LOCK, lock))
    return bool(await hnsw_state(c, name))
