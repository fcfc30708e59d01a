"""The DuckDB store's `AnswerCache`: language-model answers by key, in
`enrichment_cache`."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb

from .connection import DuckDbConnection
from .rows import to_timestamp


class DuckDbAnswerCache:
    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection

    async def cached_text(self, key: str) -> str | None:
        def read(c: duckdb.DuckDBPyConnection) -> str | None:
            row = c.execute("SELECT value FROM enrichment_cache WHERE key = ?",
                            [key]).fetchone()
            return str(row[0]) if row else None

        return await self._connection.read(read)

    async def cache_text(self, key: str, value: str) -> None:
        now = to_timestamp(datetime.now(UTC))
        await self._connection.run(lambda c: c.execute(
            "INSERT OR REPLACE INTO enrichment_cache VALUES (?, ?, ?)", [key, value, now]))
