"""The DuckDB store's `SpacePolicies`: what each space accepts, one row of `spaces`."""

from __future__ import annotations

import duckdb

from ....domain.document.content_source import ContentSource
from ....domain.store.ingestion import SpacePolicy
from .connection import DuckDbConnection


class DuckDbSpacePolicies:
    """Policies are read by every ingest and written by `set_policy` alone (the process
    holding the store is its only writer, ADR-0022): each is read once and kept until
    the next `set_policy`."""

    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection
        self._known: dict[str, SpacePolicy] = {}
        self._writes = 0

    async def policy(self, space: str) -> SpacePolicy:
        known = self._known.get(space)
        if known is not None:
            return known
        writes = self._writes
        found = await self._read(space)
        if writes == self._writes:  # no policy was set meanwhile
            self._known[space] = found
        return found

    async def _read(self, space: str) -> SpacePolicy:
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
        self._writes += 1
        self._known.clear()
        kinds = ",".join(sorted(k.value for k in policy.allowed_kinds))
        await self._connection.run(lambda c: c.execute(
            "INSERT INTO spaces VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
            "ingestion_enabled = excluded.ingestion_enabled, max_bytes = excluded.max_bytes, "
            "allowed_kinds = excluded.allowed_kinds, enrich = excluded.enrich",
            [space, policy.ingestion_enabled, policy.max_bytes, kinds,
             ",".join(sorted(policy.enrich))]))
        self._writes += 1  # a read that began before the write ended keeps nothing
        self._known.clear()
