"""The PostgreSQL store's answer cache: language-model answers by the key of what
produced them, shared by every process on the database."""

from __future__ import annotations

from datetime import UTC, datetime

from .connection import PostgresConnection


class PostgresAnswerCache:
    """The `enrichment_cache` table."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

    async def cached_text(self, key: str) -> str | None:
        rows = await self._connection.rows(
            "SELECT value FROM enrichment_cache WHERE key = %s", (key,))
        return str(rows[0][0]) if rows else None

    async def cache_text(self, key: str, value: str) -> None:
        await self._connection.rows(
            "INSERT INTO enrichment_cache VALUES (%s, %s, %s) ON CONFLICT (key) "
            "DO UPDATE SET value = excluded.value, created_at = "
            "excluded.created_at RETURNING 1", (key, value, datetime.now(UTC)))
