"""The upkeep of the PostgreSQL store's HNSW indexes: built once a vector table
reaches `vector_tables.HNSW_THRESHOLD` rows, after the commit that took it there (the
fingerprints' index comes with the schema); built or dropped on demand (benchmarks);
and whether each exists, looked up at most every `KEPT_SECONDS` for the searches that
depend on it."""

from __future__ import annotations

import time
from collections.abc import Collection

from . import vector_tables
from .connection import KEPT_SECONDS, PostgresConnection
from .rows import Connection


class PostgresVectorIndexes:
    """The HNSW indexes of one store's vector tables, by dimension (`FINGERPRINTS` for
    the fingerprints)."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection
        self._hnsw: dict[int | str, tuple[float, bool]] = {}
        connection.when_written(self._hnsw.clear)

    async def indexed(self, c: Connection, dimension: int | str) -> bool:
        """Whether the dimension's vectors have an HNSW index (looked up at most every
        `KEPT_SECONDS`)."""
        now = time.monotonic()
        kept = self._hnsw.get(dimension)
        if kept is None or kept[0] <= now:
            kept = (now + KEPT_SECONDS, bool(await vector_tables.hnsw_state(c, dimension)))
            self._hnsw[dimension] = kept
        return kept[1]

    async def build_vector_index(self, space: str) -> bool:
        """Build the HNSW index over the vectors of the space's model now, whatever
        their number (it is otherwise built when they reach `HNSW_THRESHOLD`). False
        when the space has no vectors or they are too wide for HNSW."""
        async def build(c: Connection) -> bool:
            model = await vector_tables.embedding_model(c, space)
            self._hnsw.clear()
            return model is not None and await vector_tables.build_hnsw(
                c, model.dimension, force=True)

        return await self._connection.on_connection(build, "building a vector index")

    async def drop_vector_index(self, space: str) -> None:
        async def drop(c: Connection) -> None:
            model = await vector_tables.embedding_model(c, space)
            if model is not None:
                await c.execute(f"DROP INDEX CONCURRENTLY IF EXISTS "
                                f"{vector_tables.table(model.dimension)}_hnsw")
            self._hnsw.clear()

        await self._connection.on_connection(drop, "dropping a vector index")

    async def index_vectors_when_due(self, dimensions: Collection[int]) -> None:
        """After writes of vectors of these dimensions: build a table's HNSW index once
        it holds `HNSW_THRESHOLD` rows."""
        for dimension in sorted(dimensions):
            async def build(c: Connection, dimension: int = dimension) -> bool:
                return await vector_tables.build_hnsw(c, dimension)

            await self._connection.on_connection(build, "building a vector index")
