"""The DuckDB store's `Catalogue`: documents by any name, a space's listing, stored
structure and chunks, citations of many documents at once, unreferenced hashes and the
store's status. Every read runs on a cursor of its own, beside the writer."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import UTC
from typing import TYPE_CHECKING, Any

import duckdb

from ....domain.store.document_pages import PageCursor
from ....domain.store.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SourceRecord,
    SpaceCount,
    StoreStatus,
    VersionRecord,
)
from ....domain.values.value_codec import from_plain
from ..store_rows import citations_from_rows, source_from_row
from .connection import DuckDbConnection
from .generation_cache import GenerationCache
from .rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    SOURCE_COLUMNS,
    VERSION_COLUMNS,
    chunks_from_rows,
    document_from_row,
    from_timestamp,
    load_document,
    version_from_row,
)
from .schema import SCHEMA_VERSION

KEPT_CITATIONS = 20_000
"""Documents' citations kept between writes (a few KB each at most)."""
# Chunks and structure are imported by the first read of them (`sheaf list` reads neither).
if TYPE_CHECKING:
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure


class DuckDbCatalogue:
    """The read side of the store, over its connection's read cursors."""

    def __init__(self, connection: DuckDbConnection) -> None:
        self._connection = connection
        # Each search cites its hits' documents: those cited since the last write are
        # not read again.
        self._citations: GenerationCache[tuple[str, str], DocumentCitation | None] = \
            GenerationCache(connection, KEPT_CITATIONS)

    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        def read(c: duckdb.DuckDBPyConnection) -> DocumentRecord | None:
            row = c.execute(
                "SELECT id FROM documents WHERE space = ? AND (id = ? OR caller_source_id = ?) "
                "UNION SELECT document_id FROM sources WHERE space = ? AND "
                "(key = ? OR original = ? OR final_url = ?) LIMIT 1",
                [space, reference, reference, space, reference, reference, reference],
            ).fetchone()
            return load_document(c, str(row[0])) if row else None

        return await self._connection.read(read)

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        def fetch(c: duckdb.DuckDBPyConnection, keys: list[tuple[str, str]]
                  ) -> dict[tuple[str, str], DocumentCitation | None]:
            # A space of up to half KEPT_CITATIONS documents is read whole (about as fast
            # as a few of them): the searches after it cite from memory until the next write.
            rows = c.execute(
                "SELECT d.id, v.title, v.metadata, s.space, s.key, s.kind, s.document_id, "
                "s.fetched_sha, s.original, s.final_url FROM documents d "
                "JOIN versions v ON v.id = d.current_version "
                "LEFT JOIN sources s ON s.document_id = d.id WHERE d.space = ? AND ("
                "(SELECT count(*) FROM documents WHERE space = ?) <= ? OR d.id IN "
                """(SELECT unnest(from_json(?, '["VARCHAR"]')))) ORDER BY d.id, s.seen_at""",
                [space, space, KEPT_CITATIONS // 2,
                 json.dumps([document for _, document in keys])]).fetchall()
            found: dict[tuple[str, str], DocumentCitation | None] = {
                (space, document): citation
                for document, citation in citations_from_rows(rows).items()}
            return {**found, **{key: found.get(key) for key in keys}}

        keys = [(space, d) for d in dict.fromkeys(document_ids)]
        kept = self._citations.kept(keys)
        if kept is None:
            kept = await self._connection.read(
                lambda c: self._citations.get_many(keys, lambda missing: fetch(c, missing)))
        return {document: citation for (_, document), citation in kept.items()
                if citation is not None}

    async def documents(self, space: str) -> list[DocumentRecord]:
        def read(c: duckdb.DuckDBPyConnection) -> list[DocumentRecord]:
            # Three queries for the whole space, not three a document: listing a store
            # of a few hundred documents stays one round of reads.
            rows = c.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE space = ? "
                             "ORDER BY updated_at DESC, id", [space]).fetchall()
            of_space = "document_id IN (SELECT id FROM documents WHERE space = ?)"
            return _with_history(c, rows, of_space, [space])

        return await self._connection.read(read)

    async def documents_after(self, space: str, cursor: PageCursor | None, limit: int
                              ) -> list[DocumentRecord]:
        def read(c: duckdb.DuckDBPyConnection) -> list[DocumentRecord]:
            if cursor is None:
                rows = c.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE space = ? "
                                 "ORDER BY updated_at DESC, id LIMIT ?",
                                 [space, limit]).fetchall()
            else:
                moment = cursor.updated_at.astimezone(UTC).replace(tzinfo=None)
                rows = c.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE space = ? "
                                 "AND (updated_at < ? OR (updated_at = ? AND id > ?)) "
                                 "ORDER BY updated_at DESC, id LIMIT ?",
                                 [space, moment, moment, cursor.document_id,
                                  limit]).fetchall()
            ids = json.dumps([r[0] for r in rows])
            return _with_history(c, rows, "list_contains(?::JSON::VARCHAR[], document_id)",
                                 [ids])

        return await self._connection.read(read)

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        def read(c: duckdb.DuckDBPyConnection) -> StoredStructure | None:
            row = c.execute("SELECT s.structure FROM version_structure s JOIN versions v "
                            "ON v.id = s.version_id WHERE s.version_id = ? AND v.space = ?",
                            [version_id, space]).fetchone()
            from ....domain.store.document_analysis import StoredStructure

            return from_plain(StoredStructure, json.loads(row[0])) if row else None

        return await self._connection.read(read)

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        def read(c: duckdb.DuckDBPyConnection) -> tuple[Chunk, ...]:
            rows = c.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE version_id = ? AND space = ? "
                "ORDER BY start_offset, level = 'snippet', idx", [version_id, space]).fetchall()
            return tuple(chunks_from_rows(c, rows))

        return await self._connection.read(read, snapshot=True)

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        def read(c: duckdb.DuckDBPyConnection) -> set[str]:
            wanted = json.dumps(sorted(set(hashes)))
            used = {str(r[0]) for r in c.execute(
                """SELECT h FROM (SELECT unnest(from_json(?, '["VARCHAR"]')) AS h) w """
                "WHERE h IN (SELECT fetched_sha FROM versions UNION SELECT content_sha FROM "
                "versions UNION SELECT markdown_sha FROM versions)", [wanted]).fetchall()}
            return set(hashes) - used

        return await self._connection.read(read)

    async def status(self) -> StoreStatus:
        def read(c: duckdb.DuckDBPyConnection) -> StoreStatus:
            rows = c.execute(
                "SELECT d.space, count(DISTINCT d.id), "
                "(SELECT count(*) FROM versions v WHERE v.space = d.space), "
                "(SELECT count(*) FROM sources s WHERE s.space = d.space) "
                "FROM documents d GROUP BY d.space ORDER BY d.space").fetchall()
            last = c.execute("SELECT max(seen_at) FROM sources").fetchone()
            return StoreStatus(self._connection.path, SCHEMA_VERSION,
                               tuple(SpaceCount(str(r[0]), int(r[1]), int(r[2]), int(r[3]))
                                     for r in rows),
                               from_timestamp(last[0]) if last and last[0] else None)

        return await self._connection.read(read)


def _with_history(c: duckdb.DuckDBPyConnection, rows: list[Any], of_documents: str,
                  params: list[object]) -> list[DocumentRecord]:
    """The documents of `rows` with their versions and sources, read in two queries over
    the documents `of_documents` (a condition on `document_id`) selects."""
    versions: dict[str, list[VersionRecord]] = {}
    for r in c.execute(f"SELECT {VERSION_COLUMNS} FROM versions WHERE {of_documents} "
                       "ORDER BY document_id, number", params).fetchall():
        versions.setdefault(r[1], []).append(version_from_row(r))
    sources: dict[str, list[SourceRecord]] = {}
    for r in c.execute(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE {of_documents} "
                       "ORDER BY document_id, seen_at", params).fetchall():
        sources.setdefault(r[3], []).append(source_from_row(r))
    return [document_from_row(row, tuple(versions.get(row[0], ())),
                              tuple(sources.get(row[0], ()))) for row in rows]
