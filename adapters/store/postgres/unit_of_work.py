"""The PostgreSQL store's write side. Steps are recorded and run in one transaction at
commit, after the commit has taken an advisory lock on every document, source and
content hash they touch (in one sorted order, so two commits never wait on each other
in a circle). Under those locks each step checks what other processes committed since
the use case read: the same version again is skipped (a retried job, a second worker
on the same source), so a document is never stored twice. A commit that wrote vectors
then builds their table's HNSW index when it is due (`vector_indexes`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import anyio
import attrs
import psycopg

from ....application.ports.unit_of_work import (
    ChunkRepository,
    SourceRepository,
    VersionRepository,
)
from ....domain.analysis.chunking import Chunk
from ....domain.errors import ErrorKind, SheafError
from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.ingestion import SourceRef
from ....domain.store.knowledge_records import SourceRecord
from ....domain.store.version_bundle import VersionBundle
from ....domain.values.value_codec import to_plain
from ..buffered_unit_of_work import BufferedUnitOfWork
from ..store_rows import source_from_row
from .connection import PostgresConnection
from .connection_errors import operation_error
from .rows import (
    CHUNK_FIELDS,
    SOURCE_COLUMNS,
    VERSION_COLUMNS,
    Connection,
    chunk_row,
    version_row,
)
from .vector_indexes import PostgresVectorIndexes
from .vector_tables import as_array, delete_vectors, insert_vectors

logger = logging.getLogger("sheaf.store")
_LOCK_SEED = 21
"""Seeds `hashtextextended` for the advisory-lock keys (any constant: all sheaf
processes use the same)."""


@attrs.frozen
class _Step:
    run: Callable[[Connection], Awaitable[None]]
    keys: tuple[str, ...] = ()
    """Lock keys known when the step is recorded (documents, sources, hashes)."""
    versions: tuple[str, ...] = ()
    """Versions whose documents are locked (their ids are read at commit)."""
    dimensions: tuple[int, ...] = ()
    """Vector tables the step writes to, by dimension: their HNSW index may be due
    afterwards."""


class PostgresUnitOfWork(BufferedUnitOfWork[_Step]):
    """The writes of one use case, committed through the store's pool; the vector
    tables they grow get their HNSW index from `indexes` when it is due."""

    def __init__(self, connection: PostgresConnection,
                 indexes: PostgresVectorIndexes) -> None:
        super().__init__(self._write)
        self._connection = connection
        self._indexes = indexes
        self.sources: SourceRepository = _Sources(self, connection)
        self.versions: VersionRepository = _Versions(self, connection)
        self.chunks: ChunkRepository = _Chunks(self)

    async def _write(self, steps: list[_Step]) -> None:
        """The steps in one transaction, under the advisory locks of what they touch."""
        connection = self._connection
        try:
            async with connection.pool.connection() as c, c.transaction():
                await _lock(c, steps)
                for step in steps:
                    await step.run(c)
        except SheafError:
            raise
        except psycopg.Error as exc:
            raise operation_error(exc, connection.location, "committing a write") from None
        finally:
            connection.written()
        dimensions = {d for step in steps for d in step.dimensions}
        if dimensions:
            try:
                await self._indexes.index_vectors_when_due(dimensions)
            except SheafError as exc:
                # The write is committed: a failed index build leaves exact search
                # answering, and the next commit with vectors tries again.
                logger.warning("the HNSW index was not built: %s", exc.message)


async def _lock(c: Connection, steps: list[_Step]) -> None:
    keys = {key for step in steps for key in step.keys}
    versions = sorted({v for step in steps for v in step.versions})
    if versions:
        keys |= {f"document:{r[0]}" for r in await (await c.execute(
            "SELECT document_id FROM versions WHERE id = ANY(%s)", (versions,))).fetchall()}
    for key in sorted(keys):
        await c.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, %s))",
                        (key, _LOCK_SEED))


class _Sources:
    def __init__(self, work: PostgresUnitOfWork, connection: PostgresConnection) -> None:
        self._work = work
        self._connection = connection

    async def get(self, space: str, key: str) -> SourceRecord | None:
        rows = await self._connection.rows(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE space = %s AND key = %s", (space, key))
        return source_from_row(rows[0]) if rows else None

    async def holding(self, space: str, sha256: str) -> str | None:
        rows = await self._connection.rows(
            "SELECT v.document_id FROM versions v JOIN documents d ON d.current_version = "
            "v.id WHERE v.space = %(s)s AND (v.fetched_sha = %(h)s OR v.content_sha = %(h)s) "
            "ORDER BY v.document_id LIMIT 1", {"s": space, "h": sha256})
        return str(rows[0][0]) if rows else None

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        now = datetime.now(UTC)

        async def run(c: Connection) -> None:
            await _upsert_source(c, space, document_id, source, fetched_sha, final_url, now)

        self._work.record(_Step(run, (f"document:{document_id}",
                                      f"source:{space}:{source.key}")))

    def touch(self, space: str, key: str) -> None:
        now = datetime.now(UTC)

        async def run(c: Connection) -> None:
            await c.execute("UPDATE sources SET seen_at = %s WHERE space = %s AND key = %s",
                            (now, space, key))

        self._work.record(_Step(run))


class _Versions:
    def __init__(self, work: PostgresUnitOfWork, connection: PostgresConnection) -> None:
        self._work = work
        self._connection = connection

    async def latest_number(self, space: str, document_id: str) -> int:
        rows = await self._connection.rows(
            "SELECT max(number) FROM versions WHERE document_id = %s AND space = %s",
            (document_id, space))
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    def add(self, bundle: VersionBundle) -> None:
        version = bundle.record
        # The fingerprints' index exists from the schema (version 3): nothing to build.
        dimensions = (bundle.vectors.model.dimension,) if bundle.vectors else ()
        self._work.record(_Step(
            lambda c: _add_version(c, bundle),
            (f"document:{version.document_id}",
             f"source:{version.space}:{bundle.source.key}",
             f"content:{version.space}:{version.fetched_sha}"), dimensions=dimensions))

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        async def run(c: Connection) -> None:
            await _require_version(c, space, version_id)
            if summary is not None:
                await c.execute("UPDATE versions SET enrichment = %s WHERE id = %s",
                                (json.dumps(summary), version_id))
            if diagnostics:
                row = await (await c.execute("SELECT diagnostics FROM versions WHERE id = %s",
                                             (version_id,))).fetchone()
                assert row is not None
                await c.execute("UPDATE versions SET diagnostics = %s WHERE id = %s",
                                (json.dumps([*json.loads(row[0]), *diagnostics]), version_id))

        self._work.record(_Step(run, versions=(version_id,)))

    def save_structure(self, space: str, version_id: str,
                       structure: StoredStructure) -> None:
        async def run(c: Connection) -> None:
            await _require_version(c, space, version_id)
            await _save_structure(c, version_id, structure)

        self._work.record(_Step(run, versions=(version_id,)))

    def remove(self, space: str, document_id: str) -> None:
        async def run(c: Connection) -> None:
            found = await (await c.execute("SELECT 1 FROM documents WHERE id = %s AND "
                                           "space = %s", (document_id, space))).fetchone()
            if found is None:
                return
            await delete_vectors(c, "document_id", document_id)
            for statement in (
                    "DELETE FROM fingerprints WHERE document_id = %s",
                    "DELETE FROM chunks WHERE document_id = %s",
                    "DELETE FROM version_structure WHERE version_id IN (SELECT id FROM "
                    "versions WHERE document_id = %s)",
                    "DELETE FROM versions WHERE document_id = %s",
                    "DELETE FROM sources WHERE document_id = %s",
                    "DELETE FROM documents WHERE id = %s"):
                await c.execute(statement, (document_id,))

        self._work.record(_Step(run, (f"document:{document_id}",)))


class _Chunks:
    def __init__(self, work: PostgresUnitOfWork) -> None:
        self._work = work

    def replace(self, space: str, version_id: str, chunks: tuple[Chunk, ...],
                vectors: ChunkVectors | None) -> None:
        async def run(c: Connection) -> None:
            document_id = await _require_version(c, space, version_id)
            await delete_vectors(c, "version_id", version_id)  # new chunks outdate them
            await c.execute("DELETE FROM chunks WHERE version_id = %s", (version_id,))
            await _copy_chunks(c, version_id, document_id, space, chunks)
            if vectors is not None:
                await insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(_Step(run, versions=(version_id,), dimensions=(
            (vectors.model.dimension,) if vectors else ())))

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        async def run(c: Connection) -> None:
            document_id = await _require_version(c, space, version_id)
            await delete_vectors(c, "version_id", version_id)
            await insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(_Step(run, versions=(version_id,),
                                dimensions=(vectors.model.dimension,)))

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        async def run(c: Connection) -> None:
            await delete_vectors(c, "space", space)
            await c.execute("INSERT INTO embedding_models VALUES (%s, %s, %s) ON CONFLICT "
                            "(space) DO UPDATE SET model = excluded.model, dimension = "
                            "excluded.dimension", (space, model.name, model.dimension))

        self._work.record(_Step(run, (f"vectors:{space}",)))


async def _add_version(c: Connection, bundle: VersionBundle) -> None:
    version = bundle.record
    stored = await (await c.execute("SELECT fetched_sha FROM versions WHERE id = %s",
                                    (version.id,))).fetchone()
    if stored is not None:
        if stored[0] == version.fetched_sha:
            return  # another process (or an earlier try of this job) stored it already
        raise SheafError(ErrorKind.STORAGE,
                         f"version {version.id} was stored meanwhile by another process "
                         "from other bytes; ingest the source again to store a new version")
    if version.number == 1:
        # A new document: bytes another document took meanwhile make this source an
        # alias of it, as the use case decides when it sees them first (`duplicate`).
        twin = await (await c.execute(
            "SELECT v.document_id FROM versions v JOIN documents d ON d.current_version = "
            "v.id WHERE v.space = %(s)s AND (v.fetched_sha = %(h)s OR v.content_sha = %(h)s) "
            "AND v.document_id <> %(d)s ORDER BY v.document_id LIMIT 1",
            {"s": version.space, "h": version.fetched_sha, "d": version.document_id})
                      ).fetchone()
        if twin is not None:
            await _upsert_source(c, version.space, twin[0], bundle.source,
                                 version.fetched_sha, bundle.final_url, version.created_at)
            return
    if bundle.structure is not None:
        await _save_structure(c, version.id, bundle.structure)
    await delete_vectors(c, "document_id", version.document_id)
    await c.execute("DELETE FROM chunks WHERE document_id = %s", (version.document_id,))
    await _copy_chunks(c, version.id, version.document_id, version.space, bundle.chunks)
    if bundle.vectors is not None:
        await insert_vectors(c, version.space, version.id, version.document_id,
                             bundle.vectors)
    if bundle.fingerprint is not None:
        await c.execute("INSERT INTO fingerprints VALUES (%s, %s, %s) ON CONFLICT "
                        "(document_id) DO UPDATE SET space = excluded.space, "
                        "fingerprint = excluded.fingerprint",
                        (version.document_id, version.space, as_array(bundle.fingerprint)))
    await c.execute("UPDATE versions SET superseded_at = %s WHERE document_id = %s AND "
                    "superseded_at IS NULL", (version.created_at, version.document_id))
    await c.execute(f"INSERT INTO versions ({VERSION_COLUMNS}) VALUES "
                    f"({', '.join(['%s'] * 21)})", version_row(version))
    await c.execute(
        "INSERT INTO documents VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO "
        "UPDATE SET current_version = excluded.current_version, updated_at = "
        "excluded.updated_at, caller_source_id = coalesce(excluded.caller_source_id, "
        "documents.caller_source_id)",
        (version.document_id, version.space, version.id, bundle.caller_source_id,
         version.created_at, version.created_at))
    await _upsert_source(c, version.space, version.document_id, bundle.source,
                         version.fetched_sha, bundle.final_url, version.created_at)


async def _copy_chunks(c: Connection, version_id: str, document_id: str, space: str,
                       chunks: tuple[Chunk, ...]) -> None:
    if not chunks:
        return
    async with c.cursor().copy(f"COPY chunks ({', '.join(CHUNK_FIELDS)}) FROM STDIN") as copy:
        for chunk in chunks:
            await copy.write_row(chunk_row(chunk, version_id, document_id, space))


async def _require_version(c: Connection, space: str, version_id: str) -> str:
    """The document of a version of `space`; `document_not_found` when there is none."""
    row = await (await c.execute("SELECT document_id FROM versions WHERE id = %s AND "
                                 "space = %s", (version_id, space))).fetchone()
    if row is None:
        raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
    return str(row[0])


async def _save_structure(c: Connection, version_id: str, structure: StoredStructure) -> None:
    # A long document's structure takes seconds to encode: off the event loop.
    encoded = await anyio.to_thread.run_sync(_structure_json, structure)
    await c.execute("INSERT INTO version_structure VALUES (%s, %s) ON CONFLICT (version_id) "
                    "DO UPDATE SET structure = excluded.structure", (version_id, encoded))


def _structure_json(structure: StoredStructure) -> str:
    return json.dumps(to_plain(structure), separators=(",", ":"))


async def _upsert_source(c: Connection, space: str, document_id: str, source: SourceRef,
                         fetched_sha: str, final_url: str | None, now: datetime) -> None:
    await c.execute("INSERT INTO sources VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT "
                    "(space, key) DO UPDATE SET document_id = excluded.document_id, "
                    "fetched_sha = excluded.fetched_sha, original = excluded.original, "
                    "final_url = excluded.final_url, seen_at = excluded.seen_at",
                    (space, source.key, source.kind.value, document_id, fetched_sha,
                     source.original, final_url, now))
