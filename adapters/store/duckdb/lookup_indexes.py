"""The DuckDB store's lookup indexes, made only once their table has grown to need them
(ADR-0050).

An ART index over string keys costs DuckDB about 130 bytes a key, in blocks of its own:
on the 1,460 CISI abstracts the primary keys and secondary
indexes were 39 of the file's 92 blocks of 64 KB, more than the Markdown it held. On a
small table a scan finds a key nearly as fast (`bench/store_lookups.py`: a snippet by id
among 10,000 chunks 1.2 against 0.7 ms, a document by id 4.7 against 4.5; among 100,000
chunks 2.6 against 1.0), so each table here has no key of its own: its writer keeps its
keys unique (one process writes a store, under its lock, ADR-0022), and the indexes
below are made by `make_grown` once the table holds `INDEXED_FROM_ROWS` rows. None is
unique, so every one is subject to `maintenance.repair_indexes` after a crash."""

from __future__ import annotations

import duckdb

INDEXED_FROM_ROWS = 10_000
"""A table is given its lookup indexes once it holds this many rows: there a scan costs
about 1.75 times a lookup through the index, half a millisecond."""

LOOKUP_INDEXES: dict[str, tuple[str, str]] = {
    "documents_id": ("documents", "id"),
    "versions_id": ("versions", "id"),
    "versions_document": ("versions", "document_id"),
    "sources_key": ("sources", "key"),
    "sources_document": ("sources", "document_id"),
    "chunks_id": ("chunks", "id"),
    "chunks_version": ("chunks", "version_id"),
    "fingerprints_document": ("fingerprints", "document_id"),
    "version_structure_version": ("version_structure", "version_id"),
    "held_blobs_sha": ("held_blobs", "sha"),
    "text_terms_term": ("text_terms", "term"),
}
"""Each index (name: table, column), none unique."""

KEYLESS_TABLES = ("documents", "versions", "sources", "chunks", "fingerprints",
                  "version_structure", "held_blobs", "text_terms", "text_spaces")
"""The tables schema 12 made without a primary key (`text_spaces` has a row a space and
no index at all)."""


def make_grown(c: duckdb.DuckDBPyConnection) -> list[str]:
    """Make each lookup index whose table has reached `INDEXED_FROM_ROWS` and has none
    yet, outside any transaction of the caller's; the names made."""
    missing = {name for name in LOOKUP_INDEXES} - existing(c)
    if not missing:
        return []
    tables = {LOOKUP_INDEXES[name][0] for name in missing}
    counts = {str(table): int(rows) for table, rows in c.execute(
        "SELECT table_name, estimated_size FROM duckdb_tables() WHERE "
        "database_name = current_database() AND schema_name = 'main' AND table_name IN "
        "(SELECT unnest(?::VARCHAR[]))", [sorted(tables)]).fetchall()}
    made = []
    for name in sorted(missing):
        table, column = LOOKUP_INDEXES[name]
        if counts.get(table, 0) < INDEXED_FROM_ROWS:
            continue
        # estimated_size counts rows deleted since the last checkpoint: the real count
        # is read before an index is made for good.
        row = c.execute(f"SELECT count(*) FROM {table}").fetchone()
        if row is None or int(row[0]) < INDEXED_FROM_ROWS:
            continue
        c.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")
        made.append(name)
    return made


def existing(c: duckdb.DuckDBPyConnection) -> set[str]:
    """The lookup indexes the file has."""
    return {str(r[0]) for r in c.execute(
        "SELECT index_name FROM duckdb_indexes() WHERE database_name = current_database()"
    ).fetchall()} & set(LOOKUP_INDEXES)
