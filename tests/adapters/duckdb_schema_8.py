"""A DuckDB store put back as schema 8 or 10 held it, for the tests of migrations from
before schema 10, 11 and 12 (its tables keep schema 12's lack of keys, which migration 12
makes again whatever it finds)."""

from __future__ import annotations

import duckdb

from sheaf.adapters.store.duckdb.fingerprint_cosines import dense
from sheaf.adapters.store.duckdb.held_blobs import packed, read
from sheaf.adapters.store.duckdb.row_writes import stored_gaps
from sheaf.adapters.store.duckdb.rows import whole_chunks
from sheaf.adapters.store.duckdb.schema import MIGRATIONS
from sheaf.adapters.store.duckdb.vector_tables import vector_text
from sheaf.domain.search.feature_hashing import FINGERPRINT_DIMENSION
from sheaf.domain.store.fingerprint_signs import fingerprint_signs


def _fingerprints_as_schema_11(connection: duckdb.DuckDBPyConnection) -> None:
    """Each fingerprint's nonzero coordinates themselves, not their gaps (schema 10, 11)."""
    if connection.execute("SELECT count(*) FROM duckdb_columns() WHERE table_name = "
                          "'fingerprints' AND column_name = 'coordinates'").fetchone() == (1,):
        return
    connection.execute("ALTER TABLE fingerprints ADD COLUMN coordinates USMALLINT[]")
    connection.execute("UPDATE fingerprints SET coordinates = list_transform(range(1, "
                       "len(coordinate_gaps) + 1), k -> list_sum(coordinate_gaps[1:k])"
                       "::USMALLINT)")
    connection.execute("ALTER TABLE fingerprints DROP COLUMN coordinate_gaps")
    connection.execute("ALTER TABLE fingerprints ALTER coordinates SET NOT NULL")
    # The columns in schema 11's order, as a table made by its migrations has them.
    connection.execute("CREATE TABLE fingerprints_11 AS SELECT document_id, space, "
                       "coordinates, levels, magnitudes, reaches FROM fingerprints")
    connection.execute("DROP TABLE fingerprints")
    connection.execute("ALTER TABLE fingerprints_11 RENAME TO fingerprints")


def as_schema_10(connection: duckdb.DuckDBPyConnection) -> None:
    """Put a store back as schema 10 held it: every section's text in its row, every
    held blob compressed alone, in a table without bases."""
    _fingerprints_as_schema_11(connection)
    sections = [(ch.text, ch.id) for ch in whole_chunks(connection, "c.level = 'section'")]
    if sections:
        connection.executemany("UPDATE chunks SET text = ? WHERE id = ?", sections)
    rows = [(str(sha), read(connection, str(sha), "")) for (sha,) in connection.execute(
        "SELECT lower(hex(sha)) FROM held_blobs").fetchall()]
    # Schema 12's forms put back: every version's content digest written out.
    connection.execute("UPDATE versions SET content_sha = fetched_sha WHERE content_sha IS NULL")
    connection.execute("DROP TABLE held_blobs")
    connection.execute(MIGRATIONS[7][0])
    for sha, data in rows:
        assert data is not None
        connection.execute("INSERT INTO held_blobs VALUES (?, ?)", [sha, packed(data)])
    connection.execute("UPDATE sheaf_schema SET version = 10")


def as_schema_8(connection: duckdb.DuckDBPyConnection) -> None:
    """Put a store back as schema 8 held it: every chunk's text whole in its row and
    fingerprints dense with their sign bitmaps, in tables made by the statements that
    made them up to schema 8."""
    as_schema_10(connection)
    texts = [(ch.id, ch.text, ch.retrieval_text) for ch in whole_chunks(connection)]
    connection.execute("DROP INDEX IF EXISTS chunks_version")
    connection.execute("ALTER TABLE chunks RENAME TO chunks_10")
    for statement in (*MIGRATIONS[1], "ALTER TABLE chunks ADD COLUMN context VARCHAR"):
        connection.execute(statement)
    connection.execute("CREATE TEMP TABLE whole_texts (id VARCHAR, text VARCHAR, "
                       "retrieval_text VARCHAR)")
    if texts:
        connection.executemany("INSERT INTO whole_texts VALUES (?, ?, ?)", texts)
    connection.execute(
        "INSERT INTO chunks SELECT c.id, c.version_id, c.document_id, c.space, c.level, c.idx, "
        "c.start_offset, c.end_offset, c.tokens, c.heading_path, c.section_label, "
        "c.page_first, c.page_last, c.parent_id, c.prev_id, c.next_id, "
        "w.text, w.retrieval_text, c.context FROM chunks_10 c JOIN whole_texts w USING (id)")
    connection.execute("DROP TABLE whole_texts")
    connection.execute("DROP TABLE chunks_10")
    rows = connection.execute(
        "SELECT document_id, space, coordinates, levels, magnitudes FROM fingerprints"
    ).fetchall()
    connection.execute("DROP TABLE fingerprints")
    connection.execute(next(s for s in MIGRATIONS[2] if "TABLE fingerprints" in s))
    for statement in MIGRATIONS[6]:
        connection.execute(statement)
    for document_id, space, coordinates, levels, magnitudes in rows:
        fingerprint = tuple(float(x) for x in dense(stored_gaps(coordinates), levels,
                                                    magnitudes))
        signs = fingerprint_signs(fingerprint)
        connection.execute(
            f"INSERT INTO fingerprints VALUES (?, ?, ?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}], "
            "?, ?, ?)", [document_id, space, vector_text(fingerprint), signs.positive,
                         signs.negative, list(signs.reaches)])


# The keys schema 11 had on the tables schema 12 left without (`lookup_indexes.py`).
_SCHEMA_11_KEYS = {"documents": "id", "versions": "id", "sources": "space, key",
                   "chunks": "id", "fingerprints": "document_id",
                   "version_structure": "version_id", "text_terms": "term",
                   "text_spaces": "space"}


def as_schema_11(connection: duckdb.DuckDBPyConnection) -> None:
    """Put a store back as schema 11 held it: primary keys and the three secondary indexes
    on every table, held blobs by their hex digests, each version's content digest
    written out."""
    held = connection.execute("SELECT lower(hex(sha)), data, lower(hex(basis)) "
                              "FROM held_blobs").fetchall()
    connection.execute("DROP TABLE held_blobs")
    connection.execute("CREATE TABLE held_blobs (sha VARCHAR PRIMARY KEY, data BLOB NOT NULL, "
                       "basis VARCHAR)")
    connection.executemany("INSERT INTO held_blobs VALUES (?, ?, ?)", held)
    connection.execute("UPDATE versions SET content_sha = fetched_sha WHERE content_sha IS NULL")
    connection.execute("ALTER TABLE versions ALTER content_sha SET NOT NULL")
    connection.execute("""UPDATE versions SET metadata = '{"title": ' || to_json(title) """
                       "|| '}' WHERE metadata IS NULL")
    connection.execute("ALTER TABLE versions ALTER metadata SET NOT NULL")
    _fingerprints_as_schema_11(connection)
    for table, key in _SCHEMA_11_KEYS.items():
        connection.execute(f"ALTER TABLE {table} ADD PRIMARY KEY ({key})")
    for name, table, column in (("versions_document", "versions", "document_id"),
                                ("sources_document", "sources", "document_id"),
                                ("chunks_version", "chunks", "version_id")):
        connection.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")
    for column in ("version_id", "document_id"):  # each snippet's, copied from its chunk
        connection.execute(f"ALTER TABLE text_docs ADD COLUMN {column} VARCHAR")
        connection.execute(f"UPDATE text_docs SET {column} = c.{column} FROM chunks c "
                           "WHERE c.id = text_docs.chunk_id")
    connection.execute("UPDATE sheaf_schema SET version = 11")
