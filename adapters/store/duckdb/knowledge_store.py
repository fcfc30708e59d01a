"""The knowledge store on an embedded DuckDB file: sheaf's default, no server needed."""

from __future__ import annotations

import fcntl
import importlib
import json
import logging
import os
import queue
import re
import threading
import weakref
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import duckdb

from ....application.store.storage import Storage
from ....domain.document.content_source import ContentSource
from ....domain.errors import ErrorKind, SheafError
from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from ....domain.store.fingerprint_signs import (
    REACH_THRESHOLDS,
    FingerprintSigns,
    fingerprint_signs,
    reach,
    reach_column,
)
from ....domain.store.ingestion import SourceRef, SpacePolicy
from ....domain.store.knowledge_records import (
    BlockRow,
    DocumentCitation,
    DocumentRecord,
    SourceRecord,
    SpaceCount,
    StoreCompaction,
    StoreStatus,
    VersionRecord,
)
from ....domain.values.value_codec import from_plain, to_plain
from ..store_rows import citations_from_rows
from ..store_rows import source_from_row as _source
from . import text_index
from .fingerprint_filter import FingerprintFilter

# numpy is imported by the first vector search, not by opening; chunks and structure
# by the first read of them (`sheaf list` reads neither).
if TYPE_CHECKING:
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure
    from .vector_matrix import VectorMatrix

SCHEMA_VERSION = 7
HNSW_OVERFETCH = 4
READ_CURSORS = 4
PRIMARY_KEY_LOOKUPS = 32
"""Up to this many chunks are fetched through the primary-key index, one parameter each."""
"""Reads that run at once beside the writer; more wait for a free cursor."""
CHECKPOINT_SHARE = 0.25
"""DuckDB checkpoints when its write-ahead log reaches this share of the file's size."""
MIN_CHECKPOINT_BYTES = 16 * 1024 * 1024
"""... and never below DuckDB's own default threshold."""
CLEAN_CLOSE_SUFFIX = ".closed"
LOCK_SUFFIX = ".lock"
"""Beside the file after a clean close: the next open skips the index check."""
T = TypeVar("T")
logger = logging.getLogger("sheaf.store")

# The non-unique indexes (name: table, column). After a process is killed mid-write,
# DuckDB 1.5 can replay the write-ahead log into these with entries missing: a lookup
# through them then misses rows a scan finds (the primary keys were seen intact).
SECONDARY_INDEXES: dict[str, tuple[str, str]] = {
    "versions_document": ("versions", "document_id"),
    "sources_document": ("sources", "document_id"),
    "chunks_version": ("chunks", "version_id"),
}
# How many of the newest rows of each indexed table are looked up on every open; rows
# written last are the ones a crash can lose from an index.
_VERIFIED_ROWS = 32

# Each entry upgrades a store from the version before it; index 0 creates version 1.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE sheaf_schema (version INTEGER NOT NULL)""",
        """CREATE TABLE spaces (
            name VARCHAR PRIMARY KEY, ingestion_enabled BOOLEAN NOT NULL,
            max_bytes BIGINT NOT NULL, allowed_kinds VARCHAR NOT NULL)""",
        """CREATE TABLE documents (
            id VARCHAR PRIMARY KEY, space VARCHAR NOT NULL, current_version VARCHAR NOT NULL,
            caller_source_id VARCHAR, created_at TIMESTAMP NOT NULL,
            updated_at TIMESTAMP NOT NULL)""",
        """CREATE TABLE versions (
            id VARCHAR PRIMARY KEY, document_id VARCHAR NOT NULL, space VARCHAR NOT NULL,
            number INTEGER NOT NULL, fetched_sha VARCHAR NOT NULL, content_sha VARCHAR NOT NULL,
            markdown_sha VARCHAR NOT NULL, content_source VARCHAR NOT NULL,
            content_type VARCHAR NOT NULL, title VARCHAR, created_at TIMESTAMP NOT NULL,
            superseded_at TIMESTAMP, metadata VARCHAR NOT NULL, caller_metadata VARCHAR NOT NULL,
            caller_version_id VARCHAR, diagnostics VARCHAR NOT NULL, characters BIGINT NOT NULL,
            blocks VARCHAR NOT NULL)""",
        """CREATE TABLE sources (
            space VARCHAR NOT NULL, key VARCHAR NOT NULL, kind VARCHAR NOT NULL,
            document_id VARCHAR NOT NULL, fetched_sha VARCHAR NOT NULL,
            original VARCHAR NOT NULL, final_url VARCHAR, seen_at TIMESTAMP NOT NULL,
            PRIMARY KEY (space, key))""",
        """CREATE INDEX versions_document ON versions (document_id)""",
        """CREATE INDEX sources_document ON sources (document_id)""",
        """INSERT INTO sheaf_schema VALUES (1)""",
    ),
    (
        """CREATE TABLE chunks (
            id VARCHAR PRIMARY KEY, version_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL,
            space VARCHAR NOT NULL, level VARCHAR NOT NULL, idx INTEGER NOT NULL,
            start_offset INTEGER NOT NULL, end_offset INTEGER NOT NULL, tokens INTEGER NOT NULL,
            heading_path VARCHAR[] NOT NULL, section_label VARCHAR, page_first INTEGER,
            page_last INTEGER, parent_id VARCHAR, prev_id VARCHAR, next_id VARCHAR,
            text VARCHAR NOT NULL, retrieval_text VARCHAR NOT NULL)""",
        """CREATE INDEX chunks_version ON chunks (version_id)""",
    ),
    (
        """ALTER TABLE versions ADD COLUMN near_duplicate_of VARCHAR""",
        """ALTER TABLE versions ADD COLUMN near_duplicate_similarity DOUBLE""",
        """CREATE TABLE embedding_models (
            space VARCHAR PRIMARY KEY, model VARCHAR NOT NULL, dimension INTEGER NOT NULL)""",
        f"""CREATE TABLE fingerprints (
            document_id VARCHAR PRIMARY KEY, space VARCHAR NOT NULL,
            fingerprint FLOAT[{FINGERPRINT_DIMENSION}] NOT NULL)""",
    ),
    (
        """ALTER TABLE versions ADD COLUMN enrichment VARCHAR""",
        """ALTER TABLE chunks ADD COLUMN context VARCHAR""",
        """ALTER TABLE spaces ADD COLUMN enrich VARCHAR DEFAULT ''""",
        """CREATE TABLE enrichment_cache (
            key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL)""",
    ),
    (
        # Sections and profile are computed once per version and kept: versions stored
        # before this get theirs on first read (their Markdown lives in the blob folder).
        """CREATE TABLE version_structure (
            version_id VARCHAR PRIMARY KEY, structure VARCHAR NOT NULL)""",
    ),
    # sheaf's own full-text index, kept by every write (stores before this get theirs
    # built once, by this migration: `text_index.index_all`).
    text_index.SCHEMA,
    # Each fingerprint's sign bitmaps and reaches, which the near-duplicate lookup filters
    # by (domain/store/fingerprint_signs.py); stored rows get theirs from `_fill_fingerprint_signs`.
    (
        """ALTER TABLE fingerprints ADD COLUMN positive BLOB""",
        """ALTER TABLE fingerprints ADD COLUMN negative BLOB""",
        f"""ALTER TABLE fingerprints ADD COLUMN reaches
            USMALLINT[{len(REACH_THRESHOLDS)}]""",
    ),
)
_TEXT_INDEX_VERSION = 6
_FINGERPRINT_SIGNS_VERSION = 7
_CHUNK_FIELDS = ("id", "version_id", "document_id", "space", "level", "idx", "start_offset",
                 "end_offset", "tokens", "heading_path", "section_label", "page_first",
                 "page_last", "parent_id", "prev_id", "next_id", "text", "retrieval_text",
                 "context")
_CHUNK_TYPES = {"idx": "INTEGER", "start_offset": "INTEGER", "end_offset": "INTEGER",
                "tokens": "INTEGER", "page_first": "INTEGER", "page_last": "INTEGER",
                "heading_path": ["VARCHAR"]}
_CHUNK_SHAPE = json.dumps([{f: _CHUNK_TYPES.get(f, "VARCHAR") for f in _CHUNK_FIELDS}])
_DOCUMENT_COLUMNS = "id, space, current_version, caller_source_id, created_at, updated_at"
_SOURCE_COLUMNS = "space, key, kind, document_id, fetched_sha, original, final_url"
_VERSION_COLUMNS = ("id, document_id, space, number, fetched_sha, content_sha, markdown_sha, "
                    "content_source, content_type, title, created_at, superseded_at, metadata, "
                    "caller_metadata, caller_version_id, diagnostics, characters, blocks, "
                    "near_duplicate_of, near_duplicate_similarity, enrichment")


class DuckDbKnowledgeStore:
    """One DuckDB file holds every space. DuckDB allows one writer per file: this object
    owns its connection and runs every statement in a worker thread, one at a time."""

    def __init__(self, path: Path | str) -> None:
        # Absolute: the lock, the clean-close marker and the listing written at close must
        # name this file even if the process changed directory since it was opened.
        self.path = str(path) if str(path) == ":memory:" else os.path.abspath(path)
        unclean = sample = False
        self._file_lock: weakref.finalize[..., Any] | None = None
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # Dropped by aclose, or when the object is collected (as DuckDB's lock is).
            self._file_lock = weakref.finalize(self, os.close, _hold_store(self.path))
            # A write-ahead log left beside the file means the last writer did not close.
            unclean = Path(self.path + ".wal").exists()
            # A clean close leaves a marker; opening takes it away, so a writer that dies
            # leaves none and the next open samples the indexes (so does a store written
            # before the marker existed).
            marker = Path(self.path + CLEAN_CLOSE_SUFFIX)
            sample = unclean or not marker.exists()
            marker.unlink(missing_ok=True)
        self._lock = threading.Lock()
        self._when_closed: list[Callable[[], None]] = []
        self._free_cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        self._full_text_loaded = False
        try:
            self._connect()
            self._migrate()
            self._repair_indexes(unclean, sample)
        except BaseException:
            self._release_store()
            raise
        self._hnsw: set[int] = set()  # dimensions whose vectors have an HNSW index
        # Each (space, dimension)'s vectors as a matrix, dropped by every write; the keys
        # searched once by a scan since, whose next search loads the matrix.
        self._matrices: dict[tuple[str, int], VectorMatrix] = {}
        self._scanned: set[tuple[str, int]] = set()
        self._fingerprints = FingerprintFilter()

    def _connect(self) -> None:
        # LOADing the full-text extension is most of an open (about 0.1-0.2 s): done by
        # the first write or full-text search, so `sheaf list` and `show` do not pay it.
        # A reconnect (after compaction) loads it again before any cursor is handed out
        # when it was loaded before: a search waiting for a cursor stems at once.
        reload = self._full_text_loaded
        self._full_text_loaded = False
        self._checkpoint_threshold = MIN_CHECKPOINT_BYTES  # a new connection's default
        try:
            self._connection = duckdb.connect(self.path)
        except duckdb.Error as exc:
            raise _open_failure(self.path, exc) from None
        self._cursors = [self._connection.cursor() for _ in range(READ_CURSORS)]
        if reload:
            self._load_full_text_extension()
        for cursor in self._cursors:
            self._free_cursors.put(cursor)

    def _release_store(self) -> None:
        if self._file_lock is not None:
            self._file_lock()  # closing the descriptor drops its lock

    def _compact(self) -> None:
        """Rewrite the file with only its live rows, then reopen it (the write lock held).

        DuckDB neither zeroes freed pages nor rewrites a row group for one deleted row,
        so a removed document's text stays readable in the file until the file is
        rewritten. The copy is made beside the file and renamed over it: a crash leaves
        either the old file or the new one, never half of either."""
        if self.path == ":memory:":
            return
        for _ in range(READ_CURSORS):  # wait for every reader to hand its cursor back
            self._free_cursors.get().close()
        old = self._connection
        needs_vss = bool(old.execute("SELECT count(*) FROM duckdb_indexes() "
                                     "WHERE sql ILIKE '%USING HNSW%'").fetchone()[0])
        old.execute("CHECKPOINT")
        old.close()
        target = Path(self.path + ".compacting")
        for leftover in (target, Path(f"{target}.wal")):
            leftover.unlink(missing_ok=True)
        try:
            fresh = duckdb.connect(str(target))
            try:
                if needs_vss and _load_packaged_extension(fresh, "vss"):
                    fresh.execute("SET hnsw_enable_experimental_persistence = true")
                name = str(fresh.execute("SELECT current_database()").fetchone()[0])
                quoted = self.path.replace("'", "''")  # ATTACH takes no parameters
                fresh.execute(f"ATTACH '{quoted}' AS sheaf_before (READ_ONLY)")
                fresh.execute(f'COPY FROM DATABASE sheaf_before TO "{name}"')
                fresh.execute("DETACH sheaf_before")
                fresh.execute("CHECKPOINT")
            finally:
                fresh.close()
            with open(target, "rb") as copied:
                os.fsync(copied.fileno())
            os.replace(target, self.path)
        except (duckdb.Error, OSError):
            logger.exception("compacting %s failed; the store is unchanged", self.path)
            target.unlink(missing_ok=True)
        finally:
            self._connect()
        self._matrices.clear()
        self._fingerprints.forget()

    # -- schema ----------------------------------------------------------------------
    def _migrate(self) -> None:
        connection = self._connection
        # The version table read directly: listing information_schema costs more than
        # the rest of an open on a small store.
        try:
            row = connection.execute("SELECT max(version) FROM sheaf_schema").fetchone()
        except duckdb.CatalogException:  # a new file
            row = None
        current = int(row[0]) if row and row[0] is not None else 0
        if current > SCHEMA_VERSION:
            raise SheafError(ErrorKind.STORE_VERSION,
                             f"the store at {self.path} has schema version {current}; this sheaf "
                             f"knows up to {SCHEMA_VERSION}. Upgrade sheaf to open it.")
        if current < SCHEMA_VERSION:
            self._load_full_text_extension()  # the text index's migration stems
        for version in range(current, SCHEMA_VERSION):
            if version + 1 == _TEXT_INDEX_VERSION:
                for statement in text_index.STOPWORD_SEED:
                    connection.execute(statement)
            connection.execute("BEGIN TRANSACTION")
            try:
                for statement in MIGRATIONS[version]:
                    connection.execute(statement)
                if version + 1 == _TEXT_INDEX_VERSION:
                    text_index.index_all(connection)
                if version + 1 == _FINGERPRINT_SIGNS_VERSION:
                    _fill_fingerprint_signs(connection)
                if version > 0:
                    connection.execute("UPDATE sheaf_schema SET version = ?", [version + 1])
                connection.execute("COMMIT")
            except duckdb.Error:
                connection.execute("ROLLBACK")
                raise

    def _repair_indexes(self, unclean: bool, sample: bool) -> None:
        """Make the store answer correctly whatever happened to the last writer.

        After an unclean shutdown the log is checkpointed at once and every secondary
        index rebuilt from its table. Unless the last writer closed cleanly (`sample`),
        the newest rows are also looked up through each index and the index rebuilt when
        a lookup misses a row, which repairs stores damaged before this check existed."""
        connection = self._connection
        if not (unclean or sample):  # the last writer closed cleanly: nothing to look at
            return
        if unclean:
            connection.execute("CHECKPOINT")
        existing = {str(r[0]) for r in connection.execute(
            "SELECT index_name FROM duckdb_indexes()").fetchall()}
        broken = [name for name, (table, column) in SECONDARY_INDEXES.items()
                  if name in existing and (unclean or (sample and _index_misses_rows(
                      connection, table, column)))]
        if not broken:
            return
        logger.warning("rebuilding the indexes %s of %s", ", ".join(broken), self.path)
        connection.execute("BEGIN TRANSACTION")
        try:
            for name in broken:
                table, column = SECONDARY_INDEXES[name]
                connection.execute(f"DROP INDEX {name}")
                connection.execute(f"CREATE INDEX {name} ON {table} ({column})")
            connection.execute("COMMIT")
        except duckdb.Error:
            connection.execute("ROLLBACK")
            raise
        connection.execute("CHECKPOINT")

    def _load_full_text_extension(self) -> None:
        """LOAD the extension once per connection (under the write lock: its callers
        hold it); every cursor of the connection sees it."""
        if self._full_text_loaded:
            return
        if not _load_packaged_extension(self._connection, "fts"):
            raise SheafError(ErrorKind.STORE_VERSION,
                             "the duckdb-extension-fts package holds no extension binary")
        self._full_text_loaded = True

    async def _read(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """A plain read on a cursor of its own, beside writes rather than behind them
        (DuckDB reads a committed snapshot). The cursors are made when the store opens:
        making one later would touch the connection a write may be using."""
        def on_cursor() -> T:
            cursor = self._free_cursors.get()
            try:
                return work(cursor)
            finally:
                self._free_cursors.put(cursor)

        return await anyio.to_thread.run_sync(on_cursor)

    def _end_idle_read_transactions(self) -> None:
        """A read cursor whose last result was not read to the end keeps its transaction
        open, and an open transaction makes CHECKPOINT refuse: close those results."""
        idle = []
        while True:
            try:
                idle.append(self._free_cursors.get_nowait())
            except queue.Empty:
                break
        try:
            for cursor in idle:
                cursor.execute("SELECT 1").fetchall()
        finally:
            for cursor in idle:
                self._free_cursors.put(cursor)

    async def _run(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        def locked() -> T:
            with self._lock:
                # Every write may index snippets with the extension's `stem()`.
                self._load_full_text_extension()
                return work(self._connection)

        return await anyio.to_thread.run_sync(locked)

    async def _transaction(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        def atomic(connection: duckdb.DuckDBPyConnection) -> T:
            connection.execute("BEGIN TRANSACTION")
            try:
                result = work(connection)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            self._matrices.clear()
            self._scanned.clear()
            return result

        return await self._run(atomic)

    # -- reads -----------------------------------------------------------------------
    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        def read(c: duckdb.DuckDBPyConnection) -> DocumentRecord | None:
            row = c.execute(
                "SELECT id FROM documents WHERE space = ? AND (id = ? OR caller_source_id = ?) "
                "UNION SELECT document_id FROM sources WHERE space = ? AND "
                "(key = ? OR original = ? OR final_url = ?) LIMIT 1",
                [space, reference, reference, space, reference, reference, reference],
            ).fetchone()
            return _document(c, str(row[0])) if row else None

        return await self._read(read)

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        def read(c: duckdb.DuckDBPyConnection) -> dict[str, DocumentCitation]:
            if not document_ids:
                return {}
            rows = c.execute(
                "SELECT d.id, v.title, s.space, s.key, s.kind, s.document_id, s.fetched_sha, "
                "s.original, s.final_url FROM (SELECT unnest(from_json(?, '[\"VARCHAR\"]')) "
                "AS id) w JOIN documents d ON d.id = w.id JOIN versions v "
                "ON v.id = d.current_version LEFT JOIN sources s ON s.document_id = d.id "
                "WHERE d.space = ? ORDER BY d.id, s.seen_at",
                [json.dumps(list(dict.fromkeys(document_ids))), space]).fetchall()
            return citations_from_rows(rows)

        return await self._read(read)

    async def documents(self, space: str) -> list[DocumentRecord]:
        def read(c: duckdb.DuckDBPyConnection) -> list[DocumentRecord]:
            # Three queries for the whole space, not three a document: listing a store
            # of a few hundred documents stays one round of reads.
            rows = c.execute(f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE space = ? "
                             "ORDER BY updated_at DESC, id", [space]).fetchall()
            of_space = "document_id IN (SELECT id FROM documents WHERE space = ?)"
            versions: dict[str, list[VersionRecord]] = {}
            for r in c.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE {of_space} "
                               "ORDER BY document_id, number", [space]).fetchall():
                versions.setdefault(r[1], []).append(_version(r))
            sources: dict[str, list[SourceRecord]] = {}
            for r in c.execute(f"SELECT {_SOURCE_COLUMNS} FROM sources WHERE {of_space} "
                               "ORDER BY document_id, seen_at", [space]).fetchall():
                sources.setdefault(r[3], []).append(_source(r))
            return [_record(row, tuple(versions.get(row[0], ())),
                            tuple(sources.get(row[0], ()))) for row in rows]

        return await self._read(read)

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            # The index is written with the snippets: a read sees it as it sees them.
            scores = text_index.bm25_scores(c, space, query)
            if scores is None:
                return []
            return _top_chunks(c, *scores, filters, limit)

        if not self._full_text_loaded:  # LOADed once, under the write lock
            await self._run(lambda _: None)
        return await self._read(read)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            model.require_same(_embedding_model(c, space), space)
            if not _has_vectors(c, model.dimension):
                return []
            dimension = model.dimension
            if dimension not in self._hnsw:
                key = (space, dimension)
                if key not in self._matrices and key not in self._scanned:
                    # Loading the matrix costs several scans (0.4 s against 55 ms at 100k
                    # vectors): a process that asks once, or once after each write, scans.
                    self._scanned.add(key)
                    scores = (f"WITH scored AS (SELECT chunk_id, array_inner_product("
                              f"vector, ?::VARCHAR::FLOAT[{dimension}]) AS score FROM "
                              f"vectors_{dimension} WHERE space = ?)")
                    return _top_chunks(c, scores, [_vector_text(vector), space], filters,
                                       limit)
                if key not in self._matrices:
                    from .vector_matrix import VectorMatrix

                    self._matrices[key] = VectorMatrix.load(c, f"vectors_{dimension}", space,
                                                            dimension)
                allowed = None if filters.empty else _allowed_snippets(c, space, filters)
                return self._matrices[key].top(vector, limit, allowed)
            # The HNSW index serves only a plain top-n ordered by the distance, with no
            # other expression of it: over-fetch there, then score and filter outside. The
            # query vector travels as text: a bound list of floats costs ~25 ms a call.
            probe = f"?::VARCHAR::FLOAT[{dimension}]"
            scores = (f"WITH scored AS (SELECT chunk_id, array_inner_product(vector, {probe}) "
                      f"AS score FROM (SELECT chunk_id, space, vector FROM vectors_{dimension} "
                      f"ORDER BY array_negative_inner_product(vector, {probe}) LIMIT ?) "
                      "WHERE space = ?)")
            text = _vector_text(vector)
            return _top_chunks(c, scores, [text, text, limit * HNSW_OVERFETCH, space],
                               filters, limit)

        return await self._run(read)

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        def read(c: duckdb.DuckDBPyConnection) -> list[Chunk]:
            if not chunk_ids:
                return []
            if len(chunk_ids) <= PRIMARY_KEY_LOOKUPS:
                # A short IN list on the primary key is answered from its index (about
                # 2 ms at 100k chunks); any other condition beside it means a full scan.
                found = c.execute(f"SELECT {_CHUNK_COLUMNS}, c.space FROM chunks c WHERE "
                                  f"c.id IN ({', '.join('?' * len(chunk_ids))})", list(chunk_ids))
            else:
                # Long lists cost a bound parameter each (400: 52 ms on CISI); as one JSON
                # value joined to the table, 7 ms.
                found = c.execute(f"SELECT {_CHUNK_COLUMNS}, c.space FROM (SELECT unnest("
                                  """from_json(?, '["VARCHAR"]')) AS id) w """
                                  "JOIN chunks c ON c.id = w.id", [json.dumps(list(chunk_ids))])
            rows = {r[0]: r for r in found.fetchall()}
            return [_chunk_row(rows[i]) for i in chunk_ids if i in rows and rows[i][16] == space]

        return await self._read(read)

    async def build_vector_index(self, space: str) -> bool:
        """Build an HNSW index (the vss extension) over the vectors of the space's model,
        kept current by later writes. False when the vss extension is not installed.
        Approximate: measure recall on your data before relying on it (bench/)."""
        def build(c: duckdb.DuckDBPyConnection) -> bool:
            model = _embedding_model(c, space)
            if model is None or not _has_vectors(c, model.dimension) or \
                    not _load_packaged_extension(c, "vss"):
                return False
            c.execute("SET hnsw_enable_experimental_persistence = true")
            c.execute(f"CREATE INDEX IF NOT EXISTS vectors_{model.dimension}_hnsw ON "
                      f"vectors_{model.dimension} USING HNSW (vector) WITH (metric = 'ip')")
            self._hnsw.add(model.dimension)
            return True

        return await self._run(build)

    async def drop_vector_index(self, space: str) -> None:
        def drop(c: duckdb.DuckDBPyConnection) -> None:
            model = _embedding_model(c, space)
            if model is not None:
                c.execute(f"DROP INDEX IF EXISTS vectors_{model.dimension}_hnsw")
                self._hnsw.discard(model.dimension)

        await self._run(drop)

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return await self._read(lambda c: _embedding_model(c, space))

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        # The sign filter (exact: it drops only fingerprints whose cosine is certainly
        # below the threshold) leaves a few candidates, whose cosine DuckDB computes as the
        # scan of every fingerprint did, so the answers are the scan's to the last bit.
        signs = fingerprint_signs(fingerprint)
        new_reach = reach(fingerprint, threshold)
        column = reach_column(threshold)

        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            if column is None:
                rows = c.execute(_SIMILARITY_SQL.format(
                    where="space = ?"), [_vector_text(fingerprint), space, threshold])
                return [(str(r[0]), float(r[1])) for r in rows.fetchall()]
            candidates = self._fingerprints.candidates(c, space, signs, new_reach, column)
            if not candidates:
                return []
            # An IN list alone on the primary key is looked up through its index.
            found = c.execute(_SIMILARITY_SQL.format(
                where=f"document_id IN ({', '.join('?' * len(candidates))})")
                if len(candidates) <= PRIMARY_KEY_LOOKUPS else _SIMILARITY_SQL.format(
                where="""document_id IN (SELECT unnest(from_json(?, '["VARCHAR"]')))"""),
                [_vector_text(fingerprint), *(candidates if len(candidates) <=
                                              PRIMARY_KEY_LOOKUPS else [json.dumps(candidates)]),
                 threshold]).fetchall()
            return [(str(r[0]), float(r[1])) for r in found if r[2] == space]

        return await self._read(read)

    async def policy(self, space: str) -> SpacePolicy:
        def read(c: duckdb.DuckDBPyConnection) -> SpacePolicy:
            row = c.execute("SELECT ingestion_enabled, max_bytes, allowed_kinds, enrich FROM "
                            "spaces WHERE name = ?", [space]).fetchone()
            if not row:
                return SpacePolicy()
            kinds = frozenset(ContentSource(k) for k in str(row[2]).split(",") if k)
            return SpacePolicy(bool(row[0]), int(row[1]), kinds,
                               frozenset(e for e in str(row[3] or "").split(",") if e))

        return await self._read(read)

    async def status(self) -> StoreStatus:
        def read(c: duckdb.DuckDBPyConnection) -> StoreStatus:
            rows = c.execute(
                "SELECT d.space, count(DISTINCT d.id), "
                "(SELECT count(*) FROM versions v WHERE v.space = d.space), "
                "(SELECT count(*) FROM sources s WHERE s.space = d.space) "
                "FROM documents d GROUP BY d.space ORDER BY d.space").fetchall()
            last = c.execute("SELECT max(seen_at) FROM sources").fetchone()
            return StoreStatus(self.path, SCHEMA_VERSION,
                               tuple(SpaceCount(str(r[0]), int(r[1]), int(r[2]), int(r[3]))
                                     for r in rows),
                               _utc(last[0]) if last and last[0] else None)

        return await self._read(read)

    # -- writes ----------------------------------------------------------------------
    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        def read(c: duckdb.DuckDBPyConnection) -> tuple[Chunk, ...]:
            rows = c.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE version_id = ? AND space = ? "
                "ORDER BY start_offset, level = 'snippet', idx", [version_id, space]).fetchall()
            return tuple(_chunk_row(r) for r in rows)

        return await self._read(read)

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        def read(c: duckdb.DuckDBPyConnection) -> StoredStructure | None:
            row = c.execute("SELECT s.structure FROM version_structure s JOIN versions v "
                            "ON v.id = s.version_id WHERE s.version_id = ? AND v.space = ?",
                            [version_id, space]).fetchone()
            from ....domain.store.document_analysis import StoredStructure

            return from_plain(StoredStructure, json.loads(row[0])) if row else None

        return await self._read(read)

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        def read(c: duckdb.DuckDBPyConnection) -> set[str]:
            wanted = json.dumps(sorted(set(hashes)))
            used = {str(r[0]) for r in c.execute(
                """SELECT h FROM (SELECT unnest(from_json(?, '["VARCHAR"]')) AS h) w """
                "WHERE h IN (SELECT fetched_sha FROM versions UNION SELECT content_sha FROM "
                "versions UNION SELECT markdown_sha FROM versions)", [wanted]).fetchall()}
            return set(hashes) - used

        return await self._read(read)

    async def _purge_removed(self) -> None:
        def purge(c: duckdb.DuckDBPyConnection) -> None:
            # The file keeps deleted rows' bytes until it is rewritten: rewrite it now, so
            # the removed document's words are gone from the disk, not just from answers
            # (its terms too, which no write deletes: no other snippet may hold them).
            text_index.forget_unused_terms(c)
            self._cluster_postings(c, always=True)
            self._end_idle_read_transactions()
            self._compact()

        await self._run(purge)

    def _cluster_postings(self, c: duckdb.DuckDBPyConnection, *, always: bool = False
                          ) -> None:
        c.execute("BEGIN TRANSACTION")
        try:
            text_index.cluster_postings(c, always=always)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    async def settle(self) -> None:
        """After a committed write: sort the postings when enough were appended, and let
        the write-ahead log grow with the file before DuckDB checkpoints it."""
        def settle(c: duckdb.DuckDBPyConnection) -> None:
            self._cluster_postings(c)
            self._scale_checkpoints(c)

        await self._run(settle)

    def _scale_checkpoints(self, c: duckdb.DuckDBPyConnection) -> None:
        """A checkpoint rewrites every row group a write appended to, whole: a table's
        last row group holds up to 122,880 rows, so with DuckDB's fixed 16 MiB threshold
        each checkpoint cost more as the store grew (at 5,000 documents 1.1 s, rewriting
        the chunks and fingerprints written since the first). Checkpointing once the log
        reaches a share of the file keeps the rewriting per byte written constant."""
        if self.path == ":memory:":
            return
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return
        threshold = max(MIN_CHECKPOINT_BYTES, int(size * CHECKPOINT_SHARE))
        if abs(threshold - self._checkpoint_threshold) > self._checkpoint_threshold / 8:
            c.execute(f"SET checkpoint_threshold = '{threshold}B'")
            self._checkpoint_threshold = threshold

    async def compact(self) -> StoreCompaction:
        """Rewrite the file with only its live data (`sheaf compact`); its size before
        and after, in bytes."""
        def rewrite(c: duckdb.DuckDBPyConnection) -> StoreCompaction:
            before = self._bytes_on_disk()
            self._cluster_postings(c, always=True)
            self._end_idle_read_transactions()
            self._compact()
            return StoreCompaction(before, self._bytes_on_disk())

        return await self._run(rewrite)

    def _bytes_on_disk(self) -> int:
        if self.path == ":memory:":
            return 0
        return sum(os.path.getsize(p) for p in (self.path, self.path + ".wal")
                   if os.path.exists(p))

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        kinds = ",".join(sorted(k.value for k in policy.allowed_kinds))
        await self._run(lambda c: c.execute(
            "INSERT INTO spaces VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
            "ingestion_enabled = excluded.ingestion_enabled, max_bytes = excluded.max_bytes, "
            "allowed_kinds = excluded.allowed_kinds, enrich = excluded.enrich",
            [space, policy.ingestion_enabled, policy.max_bytes, kinds,
             ",".join(sorted(policy.enrich))]))

    async def cached_text(self, key: str) -> str | None:
        def read(c: duckdb.DuckDBPyConnection) -> str | None:
            row = c.execute("SELECT value FROM enrichment_cache WHERE key = ?",
                            [key]).fetchone()
            return str(row[0]) if row else None

        return await self._read(read)

    async def cache_text(self, key: str, value: str) -> None:
        now = _naive(datetime.now(UTC))
        await self._run(lambda c: c.execute(
            "INSERT OR REPLACE INTO enrichment_cache VALUES (?, ?, ?)", [key, value, now]))

    def storage(self) -> Storage:
        """This store's ports, as the use cases take them."""
        from .unit_of_work import duckdb_storage  # it builds on this

        return duckdb_storage(self)

    async def aclose(self) -> None:
        def close(c: duckdb.DuckDBPyConnection) -> None:
            for cursor in self._cursors:
                cursor.close()
            c.close()

        await self._run(close)
        if self.path != ":memory:":
            Path(self.path + CLEAN_CLOSE_SUFFIX).touch()
            for callback in self._when_closed:
                try:
                    callback()
                except Exception:  # a cache beside the file (ADR-0024): never worth a lock
                    logger.debug("after closing %s", self.path, exc_info=True)
        self._release_store()

    def when_closed(self, callback: Callable[[], None]) -> None:
        """Run `callback` when `aclose` has closed the file, before its lock is released:
        what it writes beside the file then describes the file as this process left it,
        and no other sheaf process can change the file in between."""
        self._when_closed.append(callback)


_SIMILARITY_SQL = (
    "SELECT document_id, similarity, space FROM (SELECT document_id, space, "
    f"array_cosine_similarity(fingerprint, ?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}]) "
    "AS similarity FROM fingerprints WHERE {where}) WHERE similarity >= ? "
    "ORDER BY similarity DESC, document_id")


_SIGNS_BATCH = 1000


def _fill_fingerprint_signs(c: duckdb.DuckDBPyConnection) -> None:
    """Give every stored fingerprint its sign bitmaps and reaches (the migration to
    `_FINGERPRINT_SIGNS_VERSION`), `_SIGNS_BATCH` rows at a time: as Python floats all
    the fingerprints of a large store would not fit in memory."""
    last = c.execute("SELECT max(rowid) FROM fingerprints").fetchone()
    end = int(last[0]) + 1 if last and last[0] is not None else 0
    for start in range(0, end, _SIGNS_BATCH):
        rows = c.execute("SELECT document_id, fingerprint FROM fingerprints WHERE rowid >= ? "
                         "AND rowid < ?", [start, start + _SIGNS_BATCH]).fetchall()
        if not rows:
            continue
        batch = [_signs_row(str(d), fingerprint_signs(f)) for d, f in rows]
        c.execute(
            "UPDATE fingerprints SET positive = from_hex(n.positive), "
            "negative = from_hex(n.negative), reaches = n.reaches FROM (SELECT unnest("
            "from_json(?::JSON, ?), recursive := true)) AS n WHERE fingerprints.document_id "
            "= n.document_id", [json.dumps(batch), _SIGNS_SHAPE])


_SIGNS_SHAPE = json.dumps([{"document_id": "VARCHAR", "positive": "VARCHAR",
                            "negative": "VARCHAR", "reaches": ["USMALLINT"]}])


def _signs_row(document_id: str, signs: FingerprintSigns) -> dict[str, object]:
    return {"document_id": document_id, "positive": signs.positive.hex(),
            "negative": signs.negative.hex(), "reaches": list(signs.reaches)}


_CHUNK_COLUMNS = ("c.id, c.level, c.idx, c.start_offset, c.end_offset, c.text, c.tokens, "
                  "c.heading_path, c.section_label, c.page_first, c.page_last, c.parent_id, "
                  "c.prev_id, c.next_id, c.retrieval_text, c.context")



def _top_chunks(c: duckdb.DuckDBPyConnection, scores: str, score_params: list[object],
                filters: SearchFilters, limit: int) -> list[tuple[str, float]]:
    """The best `limit` snippet ids from a `scored(chunk_id, score)` CTE that holds only
    the space's snippets, passing `filters`. Chunks and versions are joined only when a
    filter needs them, and then by narrow columns: carrying text through the ranking
    cost more than the scoring."""
    if filters.empty:
        joins, where, params = "", "", []
    else:
        versions, conditions, params = _filter_sql(filters)
        joins = f"JOIN chunks c ON c.id = s.chunk_id {versions}"
        where = "WHERE true" + conditions
    return [(str(r[0]), float(r[1])) for r in c.execute(
        f"{scores} SELECT s.chunk_id, s.score FROM scored s {joins}{where} "
        "ORDER BY s.score DESC, s.chunk_id LIMIT ?", [*score_params, *params, limit]).fetchall()]


def _allowed_snippets(c: duckdb.DuckDBPyConnection, space: str, filters: SearchFilters
                      ) -> set[str]:
    versions, conditions, params = _filter_sql(filters)
    return {str(r[0]) for r in c.execute(
        f"SELECT c.id FROM chunks c {versions}WHERE c.space = ? AND c.level = 'snippet'"
        f"{conditions}", [space, *params]).fetchall()}


def _filter_sql(filters: SearchFilters) -> tuple[str, str, list[object]]:
    """The join of versions `v` to chunks `c` when a filter needs it, the conditions on
    them, and their parameters."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("c.document_id", filters.document_ids),
                           ("c.section_label", filters.section_labels),
                           ("v.content_source", filters.content_sources)):
        if values:
            # Lists travel as JSON text: a bound Python list costs milliseconds a call.
            clauses.append(f"{column} IN (SELECT unnest(from_json(?, '[\"VARCHAR\"]')))")
            params.append(json.dumps(sorted(values)))
    if filters.excluded_section_labels:
        clauses.append("(c.section_label IS NULL OR c.section_label NOT IN "
                       """(SELECT unnest(from_json(?, '["VARCHAR"]'))))""")
        params.append(json.dumps(sorted(filters.excluded_section_labels)))
    for key, value in filters.metadata:
        clauses.append("json_extract_string(v.caller_metadata, ?) = ?")
        params += ["$." + json.dumps(key), value]
    versions = ("JOIN versions v ON v.id = c.version_id "
                if filters.content_sources or filters.metadata else "")
    return versions, "".join(f" AND {clause}" for clause in clauses), params


def _load_packaged_extension(c: duckdb.DuckDBPyConnection, name: str) -> bool:
    """LOAD an extension from its PyPI package (`duckdb-extension-<name>`): DuckDB's
    extension repository is out of reach on many machines (ADR-0008)."""
    try:
        package = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError:
        return False
    found = next(Path(package.__file__ or "").parent.rglob(f"{name}.duckdb_extension"), None)
    if found is None:
        return False
    c.execute(f"LOAD '{found}'")
    return True


def _vector_text(vector: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def _embedding_model(c: duckdb.DuckDBPyConnection, space: str) -> EmbeddingModel | None:
    row = c.execute("SELECT model, dimension FROM embedding_models WHERE space = ?",
                    [space]).fetchone()
    return EmbeddingModel(str(row[0]), int(row[1])) if row else None


def _has_vectors(c: duckdb.DuckDBPyConnection, dimension: int) -> bool:
    return bool(c.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                          [f"vectors_{dimension}"]).fetchone()[0])  # type: ignore[index]


def _delete_vectors(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Vectors live in one table per dimension (`FLOAT[dim]` is a fixed-size type)."""
    for (table,) in c.execute("SELECT table_name FROM information_schema.tables WHERE "
                              "table_name LIKE 'vectors\\_%' ESCAPE '\\'").fetchall():
        c.execute(f"DELETE FROM {table} WHERE {column} = ?", [value])


def _insert_vectors(c: duckdb.DuckDBPyConnection, space: str, version_id: str,
                    document_id: str, vectors: ChunkVectors) -> None:
    model = vectors.model
    model.require_same(_embedding_model(c, space), space)
    c.execute("INSERT OR IGNORE INTO embedding_models VALUES (?, ?, ?)",
              [space, model.name, model.dimension])
    if not vectors.chunk_ids:
        return
    dimension = model.dimension
    c.execute(f"CREATE TABLE IF NOT EXISTS vectors_{dimension} (chunk_id VARCHAR NOT NULL, "
              "version_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL, "
              f"space VARCHAR NOT NULL, vector FLOAT[{dimension}] NOT NULL)")
    rows = [{"chunk_id": i, "vector": list(v)}
            for i, v in zip(vectors.chunk_ids, vectors.vectors, strict=True)]
    c.execute(f"INSERT INTO vectors_{dimension} SELECT r.chunk_id, ?, ?, ?, "
              f"r.vector::FLOAT[{dimension}] FROM (SELECT unnest(from_json(?::JSON, "
              """'[{"chunk_id": "VARCHAR", "vector": ["FLOAT"]}]'), recursive := true)) AS r""",
              [version_id, document_id, space, json.dumps(rows)])


def _chunk_row(r: Sequence[Any]) -> Chunk:
    from ....domain.analysis.chunking import Chunk  # cached after the first row

    return Chunk(id=r[0], level=r[1], index=int(r[2]), start=int(r[3]), end=int(r[4]),
                 text=r[5], tokens=int(r[6]), heading_path=tuple(r[7]), section_label=r[8],
                 pages=(int(r[9]), int(r[10])) if r[9] is not None else (),
                 parent_id=r[11], prev_id=r[12], next_id=r[13], retrieval_text=r[14],
                 context=r[15])


def _insert_chunk_rows(c: duckdb.DuckDBPyConnection, version_id: str, document_id: str,
                       space: str, chunks: Sequence[Chunk]) -> None:
    """All chunks in one statement: the rows travel as one JSON value that DuckDB unnests,
    about 0.1 ms a row against about 1 ms a row for bound parameters."""
    if not chunks:
        return
    rows = [{"id": ch.id, "version_id": version_id, "document_id": document_id,
             "space": space, "level": ch.level, "idx": ch.index, "start_offset": ch.start,
             "end_offset": ch.end, "tokens": ch.tokens, "heading_path": list(ch.heading_path),
             "section_label": ch.section_label,
             "page_first": ch.pages[0] if ch.pages else None,
             "page_last": ch.pages[-1] if ch.pages else None, "parent_id": ch.parent_id,
             "prev_id": ch.prev_id, "next_id": ch.next_id, "text": ch.text,
             "retrieval_text": ch.retrieval_text, "context": ch.context} for ch in chunks]
    columns = ", ".join(f"r.{f}" for f in _CHUNK_FIELDS)
    c.execute(f"INSERT INTO chunks ({', '.join(_CHUNK_FIELDS)}) SELECT {columns} FROM "
              "(SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
              [json.dumps(rows), _CHUNK_SHAPE])
    text_index.index_snippets(c, version_id, document_id, space, [
        (ch.id, ch.retrieval_text) for ch in chunks if ch.level == "snippet"])


def _delete_chunks(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Delete the chunks whose `column` (version_id or document_id) is `value`, and
    their entries in the full-text index."""
    text_index.unindex(c, column, value)
    c.execute(f"DELETE FROM chunks WHERE {column} = ?", [value])


def _require_version(c: duckdb.DuckDBPyConnection, space: str, version_id: str) -> str:
    """The document of a version of `space`; `document_not_found` when there is none."""
    row = c.execute("SELECT document_id FROM versions WHERE id = ? AND space = ?",
                    [version_id, space]).fetchone()
    if row is None:
        raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
    return str(row[0])


def _save_structure(c: duckdb.DuckDBPyConnection, version_id: str,
                    structure: StoredStructure) -> None:
    c.execute("INSERT OR REPLACE INTO version_structure VALUES (?, ?)",
              [version_id, json.dumps(to_plain(structure), separators=(",", ":"))])


_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.*?) \(PID (\d+)\)", re.S)


def _hold_store(path: str) -> int:
    """An exclusive lock on `<store>.lock` for as long as this object has the store.

    DuckDB's own lock goes with its connection, and compaction closes the connection to
    swap the rewritten file in: without this lock another sheaf process waiting for the
    store could open the old file in that moment and write to a file being replaced."""
    fd = os.open(path + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SheafError(ErrorKind.STORE_LOCKED,
                         f"the store at {path} is held by another sheaf process") from None
    return fd


def _open_failure(path: str, exc: duckdb.Error) -> SheafError:
    """DuckDB's "Conflicting lock" is another process holding the file: `store_locked`,
    naming that process; anything else is a file this DuckDB cannot open."""
    text = str(exc)
    if "Conflicting lock" in text or "Could not set lock" in text:
        found = _LOCK_HOLDER.search(text)
        held = f" by process {found.group(2)} ({found.group(1).strip()})" if found else ""
        return SheafError(ErrorKind.STORE_LOCKED, f"the store at {path} is held{held}")
    return SheafError(ErrorKind.STORE_VERSION, f"cannot open the store at {path}: {exc}")


def _blocks_json(blocks: Sequence[BlockRow]) -> str:
    # One text value per version: DuckDB binds parameters one by one, so a row per block
    # cost about a millisecond each, and blocks are only ever read whole.
    return json.dumps([[b.kind, b.start, b.end, b.level, b.label, list(b.pages)]
                       for b in blocks], separators=(",", ":"))


def _blocks_from_json(text: str) -> tuple[BlockRow, ...]:
    return tuple(BlockRow(kind=k, start=s, end=e, level=lv, label=lb, pages=tuple(p))
                 for k, s, e, lv, lb, p in json.loads(text))


def _index_misses_rows(c: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """True when a lookup through `column`'s index misses one of the newest rows.

    The sample is read by a scan in insertion order (no index serves `rowid` order); each
    key is then counted through an equality lookup, which the index serves."""
    sampled = c.execute(
        f"SELECT {column}, count(*) FROM (SELECT {column} FROM {table} ORDER BY rowid DESC "
        f"LIMIT {_VERIFIED_ROWS}) GROUP BY {column}").fetchall()
    for key, at_least in sampled:
        found = c.execute(f"SELECT count(*) FROM {table} WHERE {column} = ?", [key]).fetchone()
        if found is None or int(found[0]) < int(at_least):
            return True
    return False


def _upsert_source(c: duckdb.DuckDBPyConnection, space: str, document_id: str,
                   source: SourceRef, fetched_sha: str, final_url: str | None,
                   now: datetime) -> None:
    c.execute("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (space, key) "
              "DO UPDATE SET document_id = excluded.document_id, "
              "fetched_sha = excluded.fetched_sha, original = excluded.original, "
              "final_url = excluded.final_url, seen_at = excluded.seen_at",
              [space, source.key, source.kind.value, document_id, fetched_sha,
               source.original, final_url, now])


def _document(c: duckdb.DuckDBPyConnection, document_id: str) -> DocumentRecord | None:
    row = c.execute(f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE id = ?",
                    [document_id]).fetchone()
    if not row:
        return None
    versions = tuple(_version(r) for r in c.execute(
        f"SELECT {_VERSION_COLUMNS} FROM versions WHERE document_id = ? ORDER BY number",
        [document_id]).fetchall())
    sources = tuple(_source(s) for s in c.execute(
        f"SELECT {_SOURCE_COLUMNS} FROM sources WHERE document_id = ? ORDER BY seen_at",
        [document_id]).fetchall())
    return _record(row, versions, sources)


def _record(row: Sequence[Any], versions: tuple[VersionRecord, ...],
            sources: tuple[SourceRecord, ...]) -> DocumentRecord:
    """A document's record from its `_DOCUMENT_COLUMNS` row, versions and sources."""
    document_id = row[0]
    current = next((v for v in versions if v.id == row[2]), None)
    if current is None:
        raise SheafError(ErrorKind.CORRUPT, f"document {document_id} has no row for its current "
                         f"version {row[2]}; the store is damaged")
    return DocumentRecord(id=str(row[0]), space=str(row[1]), title=current.title,
                          current=current, sources=sources, versions=versions,
                          caller_source_id=row[3], created_at=_utc(row[4]),
                          updated_at=_utc(row[5]))


def _version(row: Sequence[Any]) -> VersionRecord:
    return VersionRecord(
        id=row[0], document_id=row[1], space=row[2], number=int(row[3]), fetched_sha=row[4],
        content_sha=row[5], markdown_sha=row[6], content_source=row[7], content_type=row[8],
        title=row[9], created_at=_utc(row[10]),
        superseded_at=_utc(row[11]) if row[11] else None, metadata=json.loads(row[12]),
        caller_metadata=json.loads(row[13]), caller_version_id=row[14],
        diagnostics=tuple(json.loads(row[15])), characters=int(row[16]),
        blocks=_blocks_from_json(row[17]), near_duplicate_of=row[18],
        near_duplicate_similarity=row[19], enrichment=json.loads(row[20]) if row[20] else None)


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
