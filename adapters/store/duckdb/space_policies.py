"""The DuckDB store's `SpacePolicies`: what each space accepts, one row of `spaces`."""

from __future__ import annotations

import duckdb

from ....domain.document.content_source import ContentSource
from ....domain.store.ingestion import SpacePolicy
from .connection import DuckDbConnection


class DuckDbSpacePolicies:
    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection

    async def policy(self, space: str) -> SpacePolicy:
        def read(c: duckdb.DuckDBPyConnection) -> SpacePolicy:
            row = c.execute("SELECT ingestion_enabled, max_bytes, allowed_kinds, enrich FROM "
                            "spaces WHERE name = ?", [space]).fetchone()
            if not row:
                return SpacePolicy()
            kinds = frozenset(ContentSource(k) for k in str(row[2]).split(",") if k)
            return SpacePolicy(bool(row[0]), int(row[1]), kinds,
                               frozenset(e for e in str(row[3] or "").split(",") if e))

        return await self._connection.read(read)

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        kinds = ",".join(sorted(k.value for k in policy.allowed_kinds))
        await self._connection.run(lambda c: c.execute(
            "INSERT INTO spaces VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
            "ingestion_enabled = excluded.ingestion_enabled, max_bytes = excluded.max_bytes, "
            "allowed_kinds = excluded.allowed_kinds, enrich = excluded.enrich",
            [space, policy.ingestion_enabled, policy.max_bytes, kinds,
             ",".join(sorted(policy.enrich))]))
