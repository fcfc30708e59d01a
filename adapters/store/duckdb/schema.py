"""The DuckDB store's schema: the migrations that make each version from the one before,
run as the store opens, and the checks around them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import duckdb

from ....domain.errors import ErrorKind, SheafError
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from ....domain.store.fingerprint_signs import (
    REACH_THRESHOLDS,
    FingerprintSigns,
    fingerprint_signs,
)
from . import lookup_indexes, text_index

if TYPE_CHECKING:
    from .connection import DuckDbConnection

SCHEMA_VERSION = 12

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
    # Small blobs held in the file, written in their version's transaction (ADR-0047);
    # `data` is zlib-compressed. Blobs stored before stay files in the blob folder.
    (
        """CREATE TABLE held_blobs (sha VARCHAR PRIMARY KEY, data BLOB NOT NULL)""",
    ),
    # The retrieval prefix's markers are no longer words (domain/analysis/retrieval_prefix.py):
    # the text index is made again from every stored snippet (`_MARKER_FREE_TERMS_VERSION`).
    text_index.REMADE,
    # A chunk's text stored once (ADR-0048): a snippet's text is its section's at its
    # offsets, a retrieval text the prefix before the text (`rows.CHUNK_COLUMNS`). The
    # table is made anew (DuckDB 1.5 aborted updating it after altering its columns in
    # one transaction), so the old values' blocks are free once this commits.
    (
        """CREATE TABLE chunks_10 (
            id VARCHAR PRIMARY KEY, version_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL,
            space VARCHAR NOT NULL, level VARCHAR NOT NULL, idx INTEGER NOT NULL,
            start_offset INTEGER NOT NULL, end_offset INTEGER NOT NULL, tokens INTEGER NOT NULL,
            heading_path VARCHAR[] NOT NULL, section_label VARCHAR, page_first INTEGER,
            page_last INTEGER, parent_id VARCHAR, prev_id VARCHAR, next_id VARCHAR,
            text VARCHAR, retrieval_text VARCHAR, context VARCHAR, retrieval_prefix VARCHAR)""",
        """INSERT INTO chunks_10 SELECT c.id, c.version_id, c.document_id, c.space, c.level,
            c.idx, c.start_offset, c.end_offset, c.tokens, c.heading_path, c.section_label,
            c.page_first, c.page_last, c.parent_id, c.prev_id, c.next_id,
            CASE WHEN c.level = 'snippet' AND p.start_offset <= c.start_offset
                AND c.end_offset <= p.end_offset AND substr(p.text, c.start_offset
                - p.start_offset + 1, c.end_offset - c.start_offset) = c.text
                THEN NULL ELSE c.text END,
            CASE WHEN ends_with(c.retrieval_text, c.text) THEN NULL ELSE c.retrieval_text END,
            c.context,
            CASE WHEN ends_with(c.retrieval_text, c.text) THEN left(c.retrieval_text,
                length(c.retrieval_text) - length(c.text)) END
            FROM chunks c LEFT JOIN chunks p ON p.id = c.parent_id""",
        """DROP INDEX chunks_version""",
        """DROP TABLE chunks""",
        """ALTER TABLE chunks_10 RENAME TO chunks""",
        """CREATE INDEX chunks_version ON chunks (version_id)""",
        # A fingerprint as its coordinates that are not zero, each with a signed level
        # into its distinct magnitudes (`fingerprint_cosines.py`); the sign bitmaps,
        # made from them, are no longer stored.
        f"""CREATE TABLE fingerprints_10 (
            document_id VARCHAR PRIMARY KEY, space VARCHAR NOT NULL,
            coordinates USMALLINT[] NOT NULL, levels SMALLINT[] NOT NULL,
            magnitudes FLOAT[] NOT NULL, reaches USMALLINT[{len(REACH_THRESHOLDS)}])""",
        f"""INSERT INTO fingerprints_10 SELECT document_id, space, coordinates,
            list_transform(weights, w -> (sign(w) * list_position(magnitudes, abs(w)))
                ::SMALLINT),
            magnitudes, reaches FROM (SELECT document_id, space, reaches,
                list_filter(range({FINGERPRINT_DIMENSION}), i -> fingerprint[i + 1] <> 0)
                    ::USMALLINT[] AS coordinates,
                list_filter(fingerprint::FLOAT[], x -> x <> 0) AS weights,
                list_sort(list_distinct(list_transform(list_filter(fingerprint::FLOAT[],
                    x -> x <> 0), x -> abs(x)))) AS magnitudes FROM fingerprints)""",
        """DROP TABLE fingerprints""",
        """ALTER TABLE fingerprints_10 RENAME TO fingerprints""",
    ),
    # A held blob may be compressed with another of its version as zlib's dictionary,
    # its `basis` (`held_blobs.py`). New files have 64 KB blocks (`connection.py`), which
    # an older sheaf would open but could not build its HNSW index in: it refuses them
    # by this version instead.
    (
        """ALTER TABLE held_blobs ADD COLUMN basis VARCHAR""",
    ),
    # No primary keys nor secondary indexes on the tables that grow with the store: each
    # index is made once its table is large enough to need it (`lookup_indexes.py`,
    # ADR-0050). The tables are made anew by `_drop_keys` (DuckDB drops no key in place).
    (),
)
_TEXT_INDEX_VERSION = 6
_MARKER_FREE_TERMS_VERSION = 9
_FINGERPRINT_SIGNS_VERSION = 7
_KEYLESS_VERSION = 12


def check_schema(connection: DuckDbConnection) -> None:
    """For a store opened read-only (nothing can be migrated): `store_version` unless its
    schema is the one this sheaf reads and writes."""
    try:
        row = connection.writer.execute("SELECT max(version) FROM sheaf_schema").fetchone()
    except duckdb.CatalogException:
        row = None
    current = int(row[0]) if row and row[0] is not None else 0
    if current != SCHEMA_VERSION:
        raise SheafError(ErrorKind.STORE_VERSION,
                         f"the store at {connection.path} has schema version {current} and "
                         f"could be opened read-only only (its disk refused writes); this "
                         f"sheaf reads version {SCHEMA_VERSION}: free space so it can migrate")


def migrate(connection: DuckDbConnection) -> None:
    """Bring the store to `SCHEMA_VERSION`, one transaction a version; `store_version`
    for a store a newer sheaf wrote."""
    writer = connection.writer
    # The version table read directly: listing information_schema costs more than
    # the rest of an open on a small store.
    try:
        row = writer.execute("SELECT max(version) FROM sheaf_schema").fetchone()
    except duckdb.CatalogException:  # a new file
        row = None
    current = int(row[0]) if row and row[0] is not None else 0
    if current > SCHEMA_VERSION:
        raise SheafError(ErrorKind.STORE_VERSION,
                         f"the store at {connection.path} has schema version {current}; this "
                         f"sheaf knows up to {SCHEMA_VERSION}. Upgrade sheaf to open it.")
    if current < SCHEMA_VERSION:
        connection.load_full_text_extension()  # the text index's migration stems
    for version in range(current, SCHEMA_VERSION):
        if version + 1 == _TEXT_INDEX_VERSION:
            for statement in text_index.STOPWORD_SEED:
                writer.execute(statement)
        writer.execute("BEGIN TRANSACTION")
        try:
            for statement in MIGRATIONS[version]:
                writer.execute(statement)
            if version + 1 in (_TEXT_INDEX_VERSION, _MARKER_FREE_TERMS_VERSION):
                text_index.index_all(writer)
            if version + 1 == _FINGERPRINT_SIGNS_VERSION:
                _fill_fingerprint_signs(writer)
            if version + 1 == _KEYLESS_VERSION:
                _drop_keys(writer)
            if version > 0:
                writer.execute("UPDATE sheaf_schema SET version = ?", [version + 1])
            writer.execute("COMMIT")
        except duckdb.Error:
            writer.execute("ROLLBACK")
            raise
    if current < _KEYLESS_VERSION:
        lookup_indexes.make_grown(writer)  # a large store keeps its lookups fast


# The gaps between a fingerprint's nonzero coordinates, the first from 0 (`row_writes.
# stored_gaps`): about 9 where a coordinate is up to 1,023, 6 bits packed instead of 10.
_COORDINATE_GAPS = ("list_transform(range(1, len(coordinates) + 1), k -> (coordinates[k] - "
                    "coalesce(coordinates[k - 1], 0))::USMALLINT)")

# A version's metadata that holds its title alone, which the title column has: NULL.
_TITLE_ONLY = ("CASE WHEN title IS NOT NULL AND json_type(metadata) = 'OBJECT' AND "
               "json_keys(metadata) = ['title'] AND json_type(metadata, '$.title') = "
               "'VARCHAR' AND json_extract_string(metadata, '$.title') = title THEN NULL "
               "ELSE metadata END")

# Columns schema 12 stores in another form (table: column: its type, nullable, and the
# value from the old row; None: not kept): a held blob's digests as their 32 bytes, a
# version's content digest only where it is not its fetched bytes' digest and its
# metadata only where it is more than its title (`rows.version_from_row`), a snippet's
# version and document in its chunk row only, a fingerprint's coordinates as their gaps.
_RESHAPED: dict[str, dict[str, tuple[str, bool, str] | None]] = {
    "held_blobs": {"sha": ("BLOB", False, "from_hex(sha)"),
                   "basis": ("BLOB", True, "from_hex(basis)")},
    "versions": {"content_sha": ("VARCHAR", True, "CASE WHEN content_sha = fetched_sha "
                                                  "THEN NULL ELSE content_sha END"),
                 "metadata": ("VARCHAR", True, _TITLE_ONLY)},
    "text_docs": {"version_id": None, "document_id": None},
    "fingerprints": {"coordinates": ("USMALLINT[]", False, _COORDINATE_GAPS)},
}
# A column schema 12 names otherwise (table: old name: new name).
_RENAMED = {"fingerprints": {"coordinates": "coordinate_gaps"}}


def _drop_keys(c: duckdb.DuckDBPyConnection) -> None:
    """Make each of `lookup_indexes.KEYLESS_TABLES` again with its columns, their types,
    nullability and defaults (`_RESHAPED` aside), its rows in their order, and no key or
    index."""
    for table in (*lookup_indexes.KEYLESS_TABLES, "text_docs"):
        reshaped = _RESHAPED.get(table, {})
        columns = []
        for name, kind, nullable, default in c.execute(
                "SELECT column_name, data_type, is_nullable, column_default FROM "
                "duckdb_columns() WHERE database_name = current_database() AND schema_name "
                "= 'main' AND table_name = ? ORDER BY column_index", [table]).fetchall():
            form = reshaped.get(name, (kind, nullable, f'"{name}"'))
            if form is not None:
                columns.append((_RENAMED.get(table, {}).get(name, name), *form, default))
        definitions = ", ".join(
            f'"{name}" {kind}' + ("" if nullable else " NOT NULL")
            + ("" if default is None else f" DEFAULT {default}")
            for name, kind, nullable, _, default in columns)
        values = ", ".join(value for _, _, _, value, _ in columns)
        for (index,) in c.execute(
                "SELECT index_name FROM duckdb_indexes() WHERE database_name = "
                "current_database() AND table_name = ?", [table]).fetchall():
            c.execute(f'DROP INDEX "{index}"')
        c.execute(f"CREATE TABLE {table}_keyless ({definitions})")
        c.execute(f"INSERT INTO {table}_keyless SELECT {values} FROM {table} ORDER BY rowid")
        c.execute(f"DROP TABLE {table}")
        c.execute(f"ALTER TABLE {table}_keyless RENAME TO {table}")


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
