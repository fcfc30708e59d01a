"""The DuckDB store's lookup indexes, made only once their table has grown to need them
(ADR-0050).

An ART index over string keys costs DuckDB about 130 bytes a key, in blocks of its own:
on the 1,460 CISI abstracts the primary keys and secondary
indexes were 39 of the file's 92 blocks of 64 KB, more than the Markdown it held. On a
small table a scan finds a key nearly as fast (`bench/store_lookups.py`: a snippet by id
among 10,000 chunks 1.2 against 0.7 ms, a document by id 4.7 against 4.5; among 100,000
chunks 2.6 against 1.0), so each table here has no key of its own: its writer keeps its
keys unique (one process writes a store, under its lock, ADR-0022), and the indexes
below are made by `make_grown` once the table holds `INDEXED_FROM_ROWS` rows. Those over
a table's key are unique: a lookup of ten ids through one took half the CPU of a
non-unique index (0.9 against 1.8 ms among 100,000 chunks), and it refuses a second row
for a key as the primary key did. The others are subject to `maintenance.repair_indexes`
after a crash, as the secondary indexes always were."""

from __future__ import annotations

import logging

import duckdb

INDEXED_FROM_ROWS = 10_000
"""A table is given its lookup indexes once it holds this many rows: there a scan costs
about 1.75 times a lookup through the index, half a millisecond."""

LOOKUP_INDEXES: dict[str, tuple[str, str, bool]] = {
    "documents_id": ("documents", "id", True),
    "versions_id": ("versions", "id", True),
    "versions_document": ("versions", "document_id", False),
    "sources_key": ("sources", "key", False),  # a key in each space
    "sources_document": ("sources", "document_id", False),
    "chunks_id": ("chunks", "id", True),
    "chunks_version": ("chunks", "version_id", False),
    "fingerprints_document": ("fingerprints", "document_id", True),
    "version_structure_version": ("version_structure", "version_id", True),
    "held_blobs_sha": ("held_blobs", "sha", True),
    "text_terms_term": ("text_terms", "term", True),
}
"""Each index (name: table, column, unique)."""
NON_UNIQUE = {name: (table, column) for name, (table, column, unique)
              in LOOKUP_INDEXES.items() if not unique}
"""The indexes DuckDB 1.5 can replay a log into with entries missing (`repair_indexes`)."""
logger = logging.getLogger("sheaf.store")

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
        table, column, unique = LOOKUP_INDEXES[name]
        if counts.get(table, 0) < INDEXED_FROM_ROWS:
            continue
        # estimated_size counts rows deleted since the last checkpoint: the real count
        # is read before an index is made for good.
        row = c.execute(f"SELECT count(*) FROM {table}").fetchone()
        if row is None or int(row[0]) < INDEXED_FROM_ROWS:
            continue
        try:
            c.execute(f"CREATE {'UNIQUE ' if unique else ''}INDEX IF NOT EXISTS {name} "
                      f"ON {table} ({column})")
        except duckdb.ConstraintException:
            # Two rows for one key (no sheaf writes them): found, not a failed write.
            logger.warning("%s holds one %s in two rows: its index %s is not unique",
                           table, column, name)
            c.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")
        made.append(name)
    return made


def existing(c: duckdb.DuckDBPyConnection) -> set[str]:
    """The lookup indexes the file has."""
    return {str(r[0]) for r in c.execute(
        "SELECT index_name FROM duckdb_indexes() WHERE database_name = current_database()"
    ).fetchall()} & set(LOOKUP_INDEXES)
