"""The DuckDB store's write side: repositories whose steps run in one transaction when
the use case commits."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb

from ....application.store.storage import Storage
from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.store.fingerprint_signs import FingerprintSigns, fingerprint_signs
from ....domain.store.ingestion import SourceRef
from ....domain.store.knowledge_records import SourceRecord
from ..buffered_unit_of_work import BufferedUnitOfWork, Step
from .knowledge_store import (
    _VERSION_COLUMNS,
    DuckDbKnowledgeStore,
    _blocks_json,
    _delete_chunks,
    _delete_vectors,
    _insert_chunk_rows,
    _insert_vectors,
    _naive,
    _require_version,
    _save_structure,
    _source,
    _upsert_source,
    _vector_text,
)

if TYPE_CHECKING:  # annotations only: a store that is only read never imports chunking
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure
    from ....domain.store.version_bundle import VersionBundle

Connection = duckdb.DuckDBPyConnection


def duckdb_storage(store: DuckDbKnowledgeStore) -> Storage:
    """The ports of one DuckDB store: its reads served by the store, its writes through
    units of work."""
    return Storage(lambda: DuckDbUnitOfWork(store), store, store, store, store, store.aclose,
                   store.compact)


class DuckDbUnitOfWork(BufferedUnitOfWork[Step[Connection]]):
    def __init__(self, store: DuckDbKnowledgeStore) -> None:
        super().__init__(self._apply)
        self._store = store
        self._removes = False
        # What the commit writes to the fingerprints, for the store's candidate filter.
        self._fingerprints: list[tuple[str, str, FingerprintSigns]] = []
        self.sources = _Sources(self)
        self.versions = _Versions(self)
        self.chunks = _Chunks(self)

    async def _apply(self, steps: list[Step[Connection]]) -> None:
        def run(c: Connection) -> None:
            for step in steps:
                step(c)

        try:
            await self._store._transaction(run)
        finally:
            written, self._fingerprints = self._fingerprints, []
        if self._removes:
            self._store._fingerprints.forget()
            await self._store._purge_removed()
        else:
            self._store._fingerprints.added(written)
            await self._store.settle()


class _Sources:
    def __init__(self, work: DuckDbUnitOfWork) -> None:
        self._work = work

    async def get(self, space: str, key: str) -> SourceRecord | None:
        def read(c: Connection) -> SourceRecord | None:
            row = c.execute("SELECT space, key, kind, document_id, fetched_sha, original, "
                            "final_url FROM sources WHERE space = ? AND key = ?",
                            [space, key]).fetchone()
            return _source(row) if row else None

        return await self._work._store._read(read)

    async def holding(self, space: str, sha256: str) -> str | None:
        def read(c: Connection) -> str | None:
            row = c.execute(
                "SELECT v.document_id FROM versions v JOIN documents d "
                "ON d.current_version = v.id WHERE v.space = ? AND "
                "(v.fetched_sha = ? OR v.content_sha = ?) LIMIT 1",
                [space, sha256, sha256]).fetchone()
            return str(row[0]) if row else None

        return await self._work._store._read(read)

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        now = _naive(datetime.now(UTC))
        self._work.record(lambda c: _upsert_source(c, space, document_id, source,
                                                   fetched_sha, final_url, now))

    def touch(self, space: str, key: str) -> None:
        now = _naive(datetime.now(UTC))
        self._work.record(lambda c: c.execute(
            "UPDATE sources SET seen_at = ? WHERE space = ? AND key = ?", [now, space, key]))


class _Versions:
    def __init__(self, work: DuckDbUnitOfWork) -> None:
        self._work = work

    async def latest_number(self, space: str, document_id: str) -> int:
        def read(c: Connection) -> int:
            row = c.execute("SELECT max(number) FROM versions WHERE document_id = ? AND "
                            "space = ?", [document_id, space]).fetchone()
            return int(row[0]) if row and row[0] is not None else 0

        return await self._work._store._read(read)

    def add(self, bundle: VersionBundle) -> None:
        signs = (fingerprint_signs(bundle.fingerprint) if bundle.fingerprint is not None
                 else None)

        def write(c: Connection) -> None:
            _add_version(c, bundle, signs)
            if signs is not None:  # handed to the filter once the transaction commits
                self._work._fingerprints.append((bundle.record.document_id,
                                                 bundle.record.space, signs))

        self._work.record(write)

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        def write(c: Connection) -> None:
            _require_version(c, space, version_id)
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
            _require_version(c, space, version_id)
            _save_structure(c, version_id, structure)

        self._work.record(write)

    def remove(self, space: str, document_id: str) -> None:
        def write(c: Connection) -> None:
            if c.execute("SELECT count(*) FROM documents WHERE id = ? AND space = ?",
                         [document_id, space]).fetchone()[0] == 0:  # type: ignore[index]
                return
            _delete_vectors(c, "document_id", document_id)
            c.execute("DELETE FROM fingerprints WHERE document_id = ?", [document_id])
            _delete_chunks(c, "document_id", document_id)
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
            document_id = _require_version(c, space, version_id)
            _delete_vectors(c, "version_id", version_id)  # new chunks outdate the vectors
            _delete_chunks(c, "version_id", version_id)
            _insert_chunk_rows(c, version_id, document_id, space, chunks)
            if vectors is not None:
                _insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(write)

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        def write(c: Connection) -> None:
            document_id = _require_version(c, space, version_id)
            _delete_vectors(c, "version_id", version_id)
            _insert_vectors(c, space, version_id, document_id, vectors)

        self._work.record(write)

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        def write(c: Connection) -> None:
            _delete_vectors(c, "space", space)
            c.execute("INSERT OR REPLACE INTO embedding_models VALUES (?, ?, ?)",
                      [space, model.name, model.dimension])

        self._work.record(write)


def _add_version(c: Connection, bundle: VersionBundle, signs: FingerprintSigns | None
                 ) -> None:
    version = bundle.record
    now = _naive(version.created_at)
    if bundle.structure is not None:
        _save_structure(c, version.id, bundle.structure)
    # A document's chunks, vectors and index entries exist only beside its row: a new
    # document (most ingests) has none to delete, and looking for them by document id
    # scans those tables (no index serves it), a cost that grew with the store.
    if c.execute("SELECT count(*) FROM documents WHERE id = ?",
                 [version.document_id]).fetchone() != (0,):
        _delete_vectors(c, "document_id", version.document_id)
        _delete_chunks(c, "document_id", version.document_id)
    _insert_chunk_rows(c, version.id, version.document_id, version.space, bundle.chunks)
    if bundle.vectors is not None:
        _insert_vectors(c, version.space, version.id, version.document_id, bundle.vectors)
    if bundle.fingerprint is not None:
        assert signs is not None
        c.execute("INSERT OR REPLACE INTO fingerprints (document_id, space, fingerprint, "
                  "positive, negative, reaches) VALUES (?, ?, "
                  f"?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}], from_hex(?), from_hex(?), "
                  f"?::VARCHAR::USMALLINT[{len(signs.reaches)}])",
                  [version.document_id, version.space, _vector_text(bundle.fingerprint),
                   signs.positive.hex(), signs.negative.hex(), json.dumps(list(signs.reaches))])
    c.execute("UPDATE versions SET superseded_at = ? WHERE document_id = ? AND "
              "superseded_at IS NULL", [now, version.document_id])
    c.execute(f"INSERT INTO versions ({_VERSION_COLUMNS}) VALUES "
              "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              [version.id, version.document_id, version.space, version.number,
               version.fetched_sha, version.content_sha, version.markdown_sha,
               version.content_source, version.content_type, version.title, now,
               json.dumps(version.metadata), json.dumps(version.caller_metadata),
               version.caller_version_id, json.dumps(list(version.diagnostics)),
               version.characters, _blocks_json(version.blocks),
               version.near_duplicate_of, version.near_duplicate_similarity,
               json.dumps(version.enrichment) if version.enrichment else None])
    c.execute("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO "
              "UPDATE SET current_version = excluded.current_version, "
              "updated_at = excluded.updated_at, caller_source_id = "
              "coalesce(excluded.caller_source_id, documents.caller_source_id)",
              [version.document_id, version.space, version.id, bundle.caller_source_id,
               now, now])
    _upsert_source(c, version.space, version.document_id, bundle.source,
                   version.fetched_sha, bundle.final_url, now)
