"""The PostgreSQL store's space policies: what each space accepts, one row a space."""

from __future__ import annotations

from ....domain.document.resolved_content import ContentSource
from ....domain.store.ingestion import SpacePolicy
from .connection import PostgresConnection


class PostgresSpacePolicies:
    """The `spaces` table; a space without a row has the default policy."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

    async def policy(self, space: str) -> SpacePolicy:
        rows = await self._connection.rows(
            "SELECT ingestion_enabled, max_bytes, allowed_kinds, enrich "
            "FROM spaces WHERE name = %s", (space,))
        if not rows:
            return SpacePolicy()
        enabled, max_bytes, kinds, enrich = rows[0]
        return SpacePolicy(bool(enabled), int(max_bytes),
                           frozenset(ContentSource(k) for k in str(kinds).split(",") if k),
                           frozenset(e for e in str(enrich or "").split(",") if e))

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        kinds = ",".join(sorted(k.value for k in policy.allowed_kinds))
        await self._connection.rows(
            "INSERT INTO spaces VALUES (%s, %s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
            "ingestion_enabled = excluded.ingestion_enabled, max_bytes = excluded.max_bytes, "
            "allowed_kinds = excluded.allowed_kinds, enrich = excluded.enrich RETURNING 1",
            (space, policy.ingestion_enabled, policy.max_bytes, kinds,
             ",".join(sorted(policy.enrich))))
