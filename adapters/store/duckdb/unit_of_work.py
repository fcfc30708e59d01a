"""The DuckDB store's `UnitOfWork`: repositories whose writes are recorded as steps and
run in one transaction on the store's connection when the use case commits; the
store's upkeep follows each commit (`maintenance.py`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb

from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.store.fingerprint_signs import FingerprintSigns, fingerprint_signs
from ....domain.store.ingestion import SourceRef
from ....domain.store.knowledge_records import SourceRecord
from ..buffered_unit_of_work import BufferedUnitOfWork, Step
from ..store_rows import source_from_row
from . import row_writes
from .connection import DuckDbConnection
from .fingerprint_filter import FingerprintFilter
from .maintenance import DuckDbMaintenance
from .rows import to_timestamp
from .vector_search import VectorSearch
from .vector_tables import delete_vectors, insert_vectors

if TYPE_CHECKING:  # annotations only: a store that is only read never imports chunking
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure
    from ....domain.store.version_bundle import VersionBundle

Connection = duckdb.DuckDBPyConnection


class DuckDbUnitOfWork(BufferedUnitOfWork[Step[Connection]]):
    """One batch of writes on `connection`. A commit then tells what this process keeps
    in memory about the store: the vector matrices go (under the write lock), the
    fingerprint filter gets the fingerprints written (or forgets all after a removal),
    and the file is settled, or compacted after a removal."""

    def __init__(self, connection: DuckDbConnection, fingerprints: FingerprintFilter,
                 vectors: VectorSearch, maintenance: DuckDbMaintenance) -> None:
        super().__init__(self._apply)
        self._connection = connection
        self._filter = fingerprints
        self._vectors = vectors
        self._maintenance = maintenance
        self._removes = False
        # What the commit writes to the fingerprints, for the store's candidate filter.
        self._fingerprints: list[tuple[str, str, FingerprintSigns]] = []
        self.sources = _Sources(self, connection)
        self.versions = _Versions(self, connection)
        self.chunks = _Chunks(self)

    async def _apply(self, steps: list[Step[Connection]]) -> None:
        def run(c: Connection) -> None:
            # Versions added one after another are written together: a unit of work
            # holding a batch of documents writes them in one set of statements.
            added: list[_AddVersion] = []
            for step in steps:
                if isinstance(step, _AddVersion):
                    added.append(step)
                    continue
                _add_all(c, added)
                step(c)
            _add_all(c, added)

        try:
            await self._connection.transaction(run, after_commit=self._vectors.after_commit)
        finally:
            written, self._fingerprints = self._fingerprints, []
        if self._removes:
            self._filter.forget()
            await self._maintenance.purge_removed()
        else:
            self._filter.added(written)
            await self._maintenance.settle()


class _AddVersion:
    """A recorded `versions.add`: run alone as a step, or with its neighbours by
    `_add_all`."""

    def __init__(self, work: DuckDbUnitOfWork, bundle: VersionBundle,
                 signs: FingerprintSigns | None) -> None:
        self.work = work
        self.bundle = bundle
        self.signs = signs

    def __call__(self, c: Connection) -> None:
        _add_all(c, [self])


def _add_all(c: Connection, added: list[_AddVersion]) -> None:
    """Write the versions `added` (emptying it) and hand their fingerprints to the filter
    once the transaction commits."""
    if not added:
        return
    row_writes.add_versions(c, [(a.bundle, a.signs) for a in added])
    for a in added:
        if a.signs is not None:
            a.work._fingerprints.append((a.bundle.record.document_id,
                                         a.bundle.record.space, a.signs))
    added.clear()


class _Sources:
    def __init__(self, work: DuckDbUnitOfWork, connection: DuckDbConnection) -> None:
        self._work = work
        self._connection = connection

    async def get(self, space: str, key: str) -> SourceRecord | None:
        def read(c: Connection) -> SourceRecord | None:
            row = c.execute("SELECT space, key, kind, document_id, fetched_sha, original, "
                            "final_url FROM sources WHERE space = ? AND key = ?",
                            [space, key]).fetchone()
            return source_from_row(row) if row else None

        return await self._connection.read(read)

    async def holding(self, space: str, sha256: str) -> str | None:
        def read(c: Connection) -> str | None:
            # A current version is the one not superseded (a document's versions are
            # superseded in the transaction that makes another current): read so, every
            # ingest's lookup costs half the join with `documents` it replaces.
            row = c.execute(
                "SELECT document_id FROM versions WHERE space = ? AND "
                "(fetched_sha = ? OR content_sha = ?) AND superseded_at IS NULL LIMIT 1",
                [space, sha256, sha256]).fetchone()
            return str(row[0]) if row else None

        return await self._connection.read(read)

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        now = to_timestamp(datetime.now(UTC))
        self._work.record(lambda c: row_writes.upsert_source(c, space, document_id, source,
                                                             fetched_sha, final_url, now))

    def touch(self, space: str, key: str) -> None:
        now = to_timestamp(datetime.now(UTC))
        self._work.record(lambda c: c.execute(
            "UPDATE sources SET seen_at = ? WHERE space = ? AND key = ?", [now, space, key]))


class _Versions:
    def __init__(self, work: DuckDbUnitOfWork, connection: DuckDbConnection) -> None:
        self._work = work
        self._connection = connection

    async def latest_number(self, space: str, document_id: str) -> int:
        def read(c: Connection) -> int:
            row = c.execute("SELECT max(number) FROM versions WHERE document_id = ? AND "
                            "space = ?", [document_id, space]).fetchone()
            return int(row[0]) if row and row[0] is not None else 0

        return await self._connection.read(read)

    def add(self, bundle: VersionBundle) -> None:
        signs = (fingerprint_signs(bundle.fingerprint) if bundle.fingerprint is not None
                 else None)
        self._work.record(_AddVersion(self._work, bundle, signs))

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        def write(c: Connection) -> None:
            row_writes.require_version(c, space, version_id)
            if summary is not None:
                c.execute("UPDATE versions SET enrichment = ? WHERE id = ?",
                          [json.dumps(summary), version_id])
            if diagnostics:
                row = c.execute("SELECT diagnostics FROM versions WHERE id = ?",
                                [version_id]).fetchone()
                c.execute("UPDATE versions SET diagnostics = ? WHERE id = ?",
                          [json.dumps([*json.loads(row[0]), *diagnostics]), version_id])

        self._work.record(write)

    def save_structure(self, space: str, version_id: str,
                       structure: StoredStructure) -> None:
        def write(c: Connection) -> None:
            row_writes.require_version(c, space, version_id)
            row_writes.save_structure(c, version_id, structure)

        self._work.record(write)

    def remove(self, space: str, document_id: str) -> None:
        def write(c: Connection) -> None:
            if c.execute("SELECT count(*) FROM documents WHERE id = ? AND space = ?",
                         [document_id, space]).fetchone()[0] == 0:  # type: ignore[index]
                return
            delete_vectors(c, "document_id", document_id)
            c.execute("DELETE FROM fingerprints WHERE document_id = ?", [document_id])
            row_writes.delete_chunks(c, "document_id", document_id)
            c.execute("DELETE FROM version_structure WHERE version_id IN (SELECT id FROM "
                      "versions WHERE document_id = ?)", [document_id])
            c.execute("DELETE FROM versions WHERE document_id = ?", [document_id])
            c.execute("DELETE FROM sources WHERE document_id = ?", [document_id])
            c.execute("DELETE FROM documents WHERE id = ?", [document_id])

        self._work._removes = True
        self._work.record(write)


class _Chunks:
    def __init__(self, work: DuckDbUnitOfWork) -> None:
        self._work = work

    def replace(self, space: str, version_id: str, chunks: tuple[Chunk, ...],
                vectors: ChunkVectors | None) -> None:
        def write(c: Connection) -> None:
            document_id = row_writes.require_version(c, space, version_id)
            delete_vectors(c, "version_id", version_id)  # new chunks outdate the vectors
            row_writes.delete_chunks(c, "version_id", version_id)
            row_writes.insert_chunk_rows(c, version_id, document_id, space, chunks)
            if vectors is not None:
                insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(write)

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        def write(c: Connection) -> None:
            document_id = row_writes.require_version(c, space, version_id)
            delete_vectors(c, "version_id", version_id)
            insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(write)

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        def write(c: Connection) -> None:
            delete_vectors(c, "space", space)
            c.execute("INSERT OR REPLACE INTO embedding_models VALUES (?, ?, ?)",
                      [space, model.name, model.dimension])

        self._work.record(write)
