"""The PostgreSQL store's catalogue: documents by any of their names, their stored
structure and chunks, citations, the blobs nothing refers to, the store's counts."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from ....domain.analysis.chunking import Chunk
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.document_pages import PageCursor
from ....domain.store.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SpaceCount,
    StoreStatus,
)
from ....domain.values.value_codec import from_plain
from ..store_rows import citations_from_rows
from .connection import PostgresConnection
from .rows import CHUNK_COLUMNS, Connection, chunk_from_row, documents_by_id
from .schema import SCHEMA_VERSION


class PostgresCatalogue:
    """The read side of one database, every space in it."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

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

        return await self._connection.on_connection(read)

    async def documents(self, space: str) -> list[DocumentRecord]:
        async def read(c: Connection) -> list[DocumentRecord]:
            ids = [r[0] for r in await (await c.execute(
                "SELECT id FROM documents WHERE space = %s ORDER BY updated_at DESC, id",
                (space,))).fetchall()]
            return await documents_by_id(c, ids)

        return await self._connection.on_connection(read)

    async def documents_after(self, space: str, cursor: PageCursor | None, limit: int
                              ) -> list[DocumentRecord]:
        async def read(c: Connection) -> list[DocumentRecord]:
            # documents_space: (space, updated_at DESC, id), so a page is one index range.
            if cursor is None:
                rows = await (await c.execute(
                    "SELECT id FROM documents WHERE space = %s "
                    "ORDER BY updated_at DESC, id LIMIT %s", (space, limit))).fetchall()
            else:
                rows = await (await c.execute(
                    "SELECT id FROM documents WHERE space = %s AND (updated_at < %s OR "
                    "(updated_at = %s AND id > %s)) ORDER BY updated_at DESC, id LIMIT %s",
                    (space, cursor.updated_at, cursor.updated_at, cursor.document_id,
                     limit))).fetchall()
            return await documents_by_id(c, [r[0] for r in rows])

        return await self._connection.on_connection(read)

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        rows = await self._connection.rows(
            "SELECT s.structure FROM version_structure s JOIN versions v "
            "ON v.id = s.version_id WHERE s.version_id = %s AND "
            "v.space = %s", (version_id, space))
        return from_plain(StoredStructure, json.loads(rows[0][0])) if rows else None

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        rows = await self._connection.rows(
            f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE version_id = %s AND space = %s "
            "ORDER BY start_offset, level = 'snippet', idx", (version_id, space))
        return tuple(chunk_from_row(r) for r in rows)

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        if not document_ids:
            return {}
        rows = await self._connection.rows(
            "SELECT d.id, v.title, v.metadata, s.space, s.key, s.kind, s.document_id, "
            "s.fetched_sha, s.original, s.final_url FROM documents d JOIN versions v "
            "ON v.id = d.current_version LEFT JOIN sources s ON s.document_id = d.id "
            "WHERE d.id = ANY(%s) AND d.space = %s ORDER BY d.id, s.seen_at, s.key",
            (list(dict.fromkeys(document_ids)), space))
        return citations_from_rows(rows)

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        wanted = sorted(set(hashes))
        if not wanted:
            return set()
        used = {str(r[0]) for r in await self._connection.rows(
            "SELECT h FROM unnest(%s::text[]) h WHERE EXISTS (SELECT 1 FROM versions "
            "WHERE fetched_sha = h) OR EXISTS (SELECT 1 FROM versions WHERE content_sha = h) "
            "OR EXISTS (SELECT 1 FROM versions WHERE markdown_sha = h)", (wanted,))}
        return set(wanted) - used

    async def status(self) -> StoreStatus:
        rows = await self._connection.rows(
            "SELECT d.space, count(*), (SELECT count(*) FROM versions v WHERE "
            "v.space = d.space), (SELECT count(*) FROM sources s WHERE s.space = d.space) "
            "FROM documents d GROUP BY d.space ORDER BY d.space")
        last = await self._connection.rows("SELECT max(seen_at) FROM sources")
        return StoreStatus(self._connection.location, SCHEMA_VERSION,
                           tuple(SpaceCount(str(r[0]), int(r[1]), int(r[2]), int(r[3]))
                                 for r in rows),
                           last[0][0] if last and last[0][0] else None)
