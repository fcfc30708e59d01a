"""The statements that write the DuckDB store's rows: a version with all it yields, its
chunks (and their full-text postings), sources and stored structure. Each runs on the
writer inside a unit of work's transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from ....domain.errors import ErrorKind, SheafError
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.store.fingerprint_signs import FingerprintSigns
from ....domain.store.ingestion import SourceRef
from ....domain.values.value_codec import to_plain
from . import text_index
from .rows import VERSION_COLUMNS, blocks_json, to_timestamp
from .vector_tables import delete_vectors, insert_vectors, vector_text

if TYPE_CHECKING:  # annotations only: a store that is only read never imports chunking
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure
    from ....domain.store.version_bundle import VersionBundle

_CHUNK_FIELDS = ("id", "version_id", "document_id", "space", "level", "idx", "start_offset",
                 "end_offset", "tokens", "heading_path", "section_label", "page_first",
                 "page_last", "parent_id", "prev_id", "next_id", "text", "retrieval_text",
                 "context")
_CHUNK_TYPES = {"idx": "INTEGER", "start_offset": "INTEGER", "end_offset": "INTEGER",
                "tokens": "INTEGER", "page_first": "INTEGER", "page_last": "INTEGER",
                "heading_path": ["VARCHAR"]}
_CHUNK_SHAPE = json.dumps([{f: _CHUNK_TYPES.get(f, "VARCHAR") for f in _CHUNK_FIELDS}])


def add_version(c: duckdb.DuckDBPyConnection, bundle: VersionBundle,
                signs: FingerprintSigns | None) -> None:
    """Store a new current version with all it yields, superseding the previous one, and
    point its source at it (`signs`: those of the bundle's fingerprint, if it has one)."""
    version = bundle.record
    now = to_timestamp(version.created_at)
    if bundle.structure is not None:
        save_structure(c, version.id, bundle.structure)
    # A document's chunks, vectors and index entries exist only beside its row: a new
    # document (most ingests) has none to delete, and looking for them by document id
    # scans those tables (no index serves it), a cost that grew with the store.
    if c.execute("SELECT count(*) FROM documents WHERE id = ?",
                 [version.document_id]).fetchone() != (0,):
        delete_vectors(c, "document_id", version.document_id)
        delete_chunks(c, "document_id", version.document_id)
    insert_chunk_rows(c, version.id, version.document_id, version.space, bundle.chunks)
    if bundle.vectors is not None:
        insert_vectors(c, version.space, version.id, version.document_id, bundle.vectors)
    if bundle.fingerprint is not None:
        assert signs is not None
        c.execute("INSERT OR REPLACE INTO fingerprints (document_id, space, fingerprint, "
                  "positive, negative, reaches) VALUES (?, ?, "
                  f"?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}], from_hex(?), from_hex(?), "
                  f"?::VARCHAR::USMALLINT[{len(signs.reaches)}])",
                  [version.document_id, version.space, vector_text(bundle.fingerprint),
                   signs.positive.hex(), signs.negative.hex(), json.dumps(list(signs.reaches))])
    c.execute("UPDATE versions SET superseded_at = ? WHERE document_id = ? AND "
              "superseded_at IS NULL", [now, version.document_id])
    c.execute(f"INSERT INTO versions ({VERSION_COLUMNS}) VALUES "
              "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              [version.id, version.document_id, version.space, version.number,
               version.fetched_sha, version.content_sha, version.markdown_sha,
               version.content_source, version.content_type, version.title, now,
               json.dumps(version.metadata), json.dumps(version.caller_metadata),
               version.caller_version_id, json.dumps(list(version.diagnostics)),
               version.characters, blocks_json(version.blocks),
               version.near_duplicate_of, version.near_duplicate_similarity,
               json.dumps(version.enrichment) if version.enrichment else None])
    c.execute("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO "
              "UPDATE SET current_version = excluded.current_version, "
              "updated_at = excluded.updated_at, caller_source_id = "
              "coalesce(excluded.caller_source_id, documents.caller_source_id)",
              [version.document_id, version.space, version.id, bundle.caller_source_id,
               now, now])
    upsert_source(c, version.space, version.document_id, bundle.source,
                  version.fetched_sha, bundle.final_url, now)


def insert_chunk_rows(c: duckdb.DuckDBPyConnection, version_id: str, document_id: str,
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
              [json_rows(rows), _CHUNK_SHAPE])
    text_index.index_snippets(c, version_id, document_id, space, [
        (ch.id, ch.retrieval_text) for ch in chunks if ch.level == "snippet"])


def json_rows(rows: Sequence[object]) -> str:
    """`json.dumps(rows)`, a row at a time: one call over a large document's chunks held
    the GIL (and a server's event loop) for a quarter of a second (ADR-0037)."""
    return "[" + ",".join(map(json.dumps, rows)) + "]"


def delete_chunks(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Delete the chunks whose `column` (version_id or document_id) is `value`, and
    their entries in the full-text index."""
    text_index.unindex(c, column, value)
    c.execute(f"DELETE FROM chunks WHERE {column} = ?", [value])


def require_version(c: duckdb.DuckDBPyConnection, space: str, version_id: str) -> str:
    """The document of a version of `space`; `document_not_found` when there is none."""
    row = c.execute("SELECT document_id FROM versions WHERE id = ? AND space = ?",
                    [version_id, space]).fetchone()
    if row is None:
        raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
    return str(row[0])


def save_structure(c: duckdb.DuckDBPyConnection, version_id: str,
                   structure: StoredStructure) -> None:
    c.execute("INSERT OR REPLACE INTO version_structure VALUES (?, ?)",
              [version_id, json.dumps(to_plain(structure), separators=(",", ":"))])


def upsert_source(c: duckdb.DuckDBPyConnection, space: str, document_id: str,
                  source: SourceRef, fetched_sha: str, final_url: str | None,
                  now: datetime) -> None:
    """Point a source at a document, with the bytes it gave (`now`: a `to_timestamp`)."""
    c.execute("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (space, key) "
              "DO UPDATE SET document_id = excluded.document_id, "
              "fetched_sha = excluded.fetched_sha, original = excluded.original, "
              "final_url = excluded.final_url, seen_at = excluded.seen_at",
              [space, source.key, source.kind.value, document_id, fetched_sha,
               source.original, final_url, now])
