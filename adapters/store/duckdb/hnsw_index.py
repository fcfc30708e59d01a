"""The DuckDB store's optional HNSW index over a space's vectors (the vss extension), and
which dimensions have one: a vector search there asks the index instead of scanning."""

from __future__ import annotations

import weakref

import duckdb

from .connection import DEFAULT_BLOCK_SIZE, DuckDbConnection, block_size
from .maintenance import DuckDbMaintenance
from .packaged_extensions import load_packaged_extension
from .vector_tables import embedding_model, has_vectors


class HnswIndex:
    """Builds and drops the index of the vectors of a space's model (one per dimension)."""

    def __init__(self, connection: DuckDbConnection, maintenance: DuckDbMaintenance) -> None:
        self._connection = connection
        # Weakly: the maintenance calls back into the vector search that holds this
        # object, and a cycle would keep the store's lock until the collector ran.
        self._widen_blocks = weakref.WeakMethod(maintenance.widen_blocks)
        self._dimensions: set[int] = set()  # dimensions whose vectors have an HNSW index

    def serves(self, dimension: int) -> bool:
        """Whether this process built an index over the vectors of `dimension`."""
        return dimension in self._dimensions

    async def build(self, space: str) -> bool:
        """Build an HNSW index (the vss extension) over the vectors of the space's model,
        kept current by later writes. False when the vss extension is not installed.
        Approximate: measure recall on your data before relying on it (bench/).
        A file made with small blocks (`NEW_FILE_BLOCK_SIZE`) is first rewritten with
        DuckDB's default ones, which the index needs."""
        def build(c: duckdb.DuckDBPyConnection) -> bool:
            model = embedding_model(c, space)
            if model is None or not has_vectors(c, model.dimension) or \
                    not load_packaged_extension(c, "vss"):
                return False
            widen = self._widen_blocks()
            if widen is not None:
                widen()
            c = self._connection.writer  # a new connection when the file was rewritten
            # A rewrite that failed (logged) left the small blocks, on which the index
            # would fail with an internal error that invalidates the connection.
            if (self._connection.path != ":memory:"
                    and block_size(self._connection.writer) < DEFAULT_BLOCK_SIZE) or \
                    not load_packaged_extension(c, "vss"):
                return False
            c.execute("SET hnsw_enable_experimental_persistence = true")
            c.execute(f"CREATE INDEX IF NOT EXISTS vectors_{model.dimension}_hnsw ON "
                      f"vectors_{model.dimension} USING HNSW (vector) WITH (metric = 'ip')")
            self._dimensions.add(model.dimension)
            return True

        return await self._connection.run(build)

    async def drop(self, space: str) -> None:
        """Drop the index of the space's model's vectors; searches scan them again."""
        def drop(c: duckdb.DuckDBPyConnection) -> None:
            model = embedding_model(c, space)
            if model is not None:
                c.execute(f"DROP INDEX IF EXISTS vectors_{model.dimension}_hnsw")
                self._dimensions.discard(model.dimension)

        await self._connection.run(drop)
