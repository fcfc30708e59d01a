"""Keeping the DuckDB file sound and small: its secondary indexes repaired as it opens
after a crash, its postings sorted and its checkpoints scaled after writes, and the file
rewritten with only its live rows (compaction) after removals, reindexing and
`sheaf compact` (ADR-0021)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import duckdb

from ....domain.store.knowledge_records import StoreCompaction
from ...files.owner_only import owner_only_file
from . import text_index
from .connection import DEFAULT_BLOCK_SIZE, DuckDbConnection
from .connection import block_size as file_block_size
from .lookup_indexes import LOOKUP_INDEXES, NON_UNIQUE, make_grown
from .lookup_indexes import existing as existing_indexes
from .packaged_extensions import load_packaged_extension

CHECKPOINT_SHARE = 0.25
"""DuckDB checkpoints when its write-ahead log reaches this share of the file's size."""
MIN_CHECKPOINT_BYTES = 64 * 1024 * 1024
"""... and never below this. A checkpoint rewrites each table's last row group whole
(up to 122,880 rows), and the blocks it replaces stay free in the file: below a row group
a table is rewritten whole, so with DuckDB's 16 MiB default the 1,460 CISI abstracts were
checkpointed once at about 800 documents and again at close, and 36 of the file's 90
blocks were free right after ingest (ADR-0048). 64 MiB of log is about 5,000 small
documents, replayed in a few seconds after a crash."""
INDEX_CHECK_GROWTH = 1.125
"""The lookup indexes a write may have made due are looked for when the file and its
log have grown by this factor since the last look (`lookup_indexes.make_grown`)."""
DUCKDB_CHECKPOINT_BYTES = 16 * 1024 * 1024
"""DuckDB's own threshold, which a new connection has until `settle` sets ours."""
logger = logging.getLogger("sheaf.store")

# After a process is killed mid-write, DuckDB 1.5 can replay the write-ahead log into a
# non-unique index with entries missing: a lookup through it then misses rows a scan
# finds (the unique ones were seen intact): `lookup_indexes.NON_UNIQUE`.
# How many of the newest rows of each indexed table are looked up on every open; rows
# written last are the ones a crash can lose from an index.
_VERIFIED_ROWS = 32


def repair_indexes(connection: DuckDbConnection, unclean: bool, sample: bool) -> None:
    """Make the store answer correctly whatever happened to the last writer.

    After an unclean shutdown the log is checkpointed at once and every secondary
    index rebuilt from its table. Unless the last writer closed cleanly (`sample`),
    the newest rows are also looked up through each index and the index rebuilt when
    a lookup misses a row, which repairs stores damaged before this check existed."""
    writer = connection.writer
    if not (unclean or sample):  # the last writer closed cleanly: nothing to look at
        return
    if unclean:
        writer.execute("CHECKPOINT")
    existing = {str(r[0]) for r in writer.execute(
        "SELECT index_name FROM duckdb_indexes()").fetchall()}
    broken = [name for name, (table, column) in NON_UNIQUE.items()
              if name in existing and (unclean or (sample and _index_misses_rows(
                  writer, table, column)))]
    if not broken:
        return
    logger.warning("rebuilding the indexes %s of %s", ", ".join(broken), connection.path)
    writer.execute("BEGIN TRANSACTION")
    try:
        for name in broken:
            table, column = NON_UNIQUE[name]
            writer.execute(f"DROP INDEX {name}")
            writer.execute(f"CREATE INDEX {name} ON {table} ({column})")
        writer.execute("COMMIT")
    except duckdb.Error:
        writer.execute("ROLLBACK")
        raise
    writer.execute("CHECKPOINT")


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


class DuckDbMaintenance:
    """What keeps the file's cost per write flat and its size near its live data; each
    runs under the write lock. `after_rewrite` is called once compaction has swapped in
    the rewritten file (what this process kept in memory from the old one goes)."""

    def __init__(self, connection: DuckDbConnection,
                 after_rewrite: Sequence[Callable[[], None]] = ()) -> None:
        self._connection = connection
        self._after_rewrite = list(after_rewrite)
        self._checkpoint_threshold = DUCKDB_CHECKPOINT_BYTES  # a new connection's
        self._all_indexed = False  # once every lookup index exists, none is looked for
        self._indexes_looked_at: int | None = None  # the store's size at the last look
        self._settled = 0  # writes settled: an in-memory store's size, as it has no file

    async def settle(self) -> None:
        """After a committed write: sort the postings when enough were appended, make the
        lookup indexes of tables grown large enough, and let the write-ahead log grow with
        the file before DuckDB checkpoints it."""
        def settle(c: duckdb.DuckDBPyConnection) -> None:
            self._cluster_postings(c)
            self._index_grown_tables(c)
            self._scale_checkpoints(c)

        await self._connection.run(settle)

    async def purge_removed(self) -> None:
        """After a commit that removed documents: rewrite the file without them."""
        def purge(c: duckdb.DuckDBPyConnection) -> None:
            # The file keeps deleted rows' bytes until it is rewritten: rewrite it now, so
            # the removed document's words are gone from the disk, not just from answers
            # (its terms too, which no write deletes: no other snippet may hold them).
            text_index.forget_unused_terms(c)
            self._cluster_postings(c, always=True)
            self._connection.end_idle_read_transactions()
            self._rewrite_file()

        await self._connection.run(purge)

    async def compact(self) -> StoreCompaction:
        """Rewrite the file with only its live data (`sheaf compact`); its size before
        and after, in bytes."""
        def rewrite(c: duckdb.DuckDBPyConnection) -> StoreCompaction:
            before = self._bytes_on_disk()
            self._cluster_postings(c, always=True)
            self._connection.end_idle_read_transactions()
            self._rewrite_file()
            return StoreCompaction(before, self._bytes_on_disk())

        return await self._connection.run(rewrite)

    def after_rewrite(self, forget: Callable[[], None]) -> None:
        """Call `forget` whenever the file has been rewritten (what it kept is stale)."""
        self._after_rewrite.append(forget)

    def widen_blocks(self) -> None:
        """Rewrite the file with DuckDB's default block size when its blocks are smaller
        (the write lock held): the vss HNSW index refuses smaller blocks, and a file
        keeps its block size otherwise."""
        if self._connection.path != ":memory:" and \
                file_block_size(self._connection.writer) < DEFAULT_BLOCK_SIZE:
            self._connection.end_idle_read_transactions()
            self._rewrite_file(block_size=DEFAULT_BLOCK_SIZE)

    def _rewrite_file(self, block_size: int | None = None) -> None:
        """Rewrite the file with only its live rows, then reopen it (the write lock held).
        The copy keeps the file's block size unless `block_size` is given.

        DuckDB neither zeroes freed pages nor rewrites a row group for one deleted row,
        so a removed document's text stays readable in the file until the file is
        rewritten. The copy is made beside the file and renamed over it: a crash leaves
        either the old file or the new one, never half of either."""
        path = self._connection.path
        if path == ":memory:":
            return
        self._connection.close_cursors()  # once every reader has handed its cursor back
        old = self._connection.writer
        needs_vss = bool(old.execute("SELECT count(*) FROM duckdb_indexes() "
                                     "WHERE sql ILIKE '%USING HNSW%'").fetchone()[0])
        block_size = block_size or file_block_size(old)
        old.execute("CHECKPOINT")
        old.close()
        target = Path(path + ".compacting")
        for leftover in (target, Path(f"{target}.wal")):
            leftover.unlink(missing_ok=True)
        try:
            fresh = duckdb.connect(str(target),
                                   config={"default_block_size": str(block_size)})
            owner_only_file(target)  # it replaces the store: its owner's alone too
            try:
                if needs_vss and load_packaged_extension(fresh, "vss"):
                    fresh.execute("SET hnsw_enable_experimental_persistence = true")
                name = str(fresh.execute("SELECT current_database()").fetchone()[0])
                quoted = path.replace("'", "''")  # ATTACH takes no parameters
                fresh.execute(f"ATTACH '{quoted}' AS sheaf_before (READ_ONLY)")
                fresh.execute(f'COPY FROM DATABASE sheaf_before TO "{name}"')
                fresh.execute("DETACH sheaf_before")
                fresh.execute("CHECKPOINT")
            finally:
                fresh.close()
            with open(target, "rb") as copied:
                os.fsync(copied.fileno())
            os.replace(target, path)
        except (duckdb.Error, OSError):
            logger.exception("compacting %s failed; the store is unchanged", path)
            target.unlink(missing_ok=True)
            Path(f"{target}.wal").unlink(missing_ok=True)
        finally:
            self._checkpoint_threshold = DUCKDB_CHECKPOINT_BYTES  # a new connection's
            self._all_indexed, self._indexes_looked_at = False, None
            self._connection.connect()
        for forget in self._after_rewrite:
            forget()

    def _index_grown_tables(self, c: duckdb.DuckDBPyConnection) -> None:
        """Make the lookup indexes of the tables grown large enough, looked for once the
        file and its log have grown by `INDEX_CHECK_GROWTH` since the last look (reading
        the catalogue costs about 1 ms, more than a small write's statements): a
        logarithmic number of looks over a store's life, none once every index exists."""
        if self._all_indexed:
            return
        self._settled += 1
        # A store in memory has no file to measure: its writes stand for its size, so
        # its looks too are a logarithmic number (it had its primary keys before).
        size = self._settled if self._connection.path == ":memory:" else \
            self._bytes_on_disk()
        if self._indexes_looked_at is not None and \
                size <= self._indexes_looked_at * INDEX_CHECK_GROWTH:
            return
        try:
            make_grown(c)
        except duckdb.Error as exc:
            # The write is committed; an index DuckDB will not make yet (an update of its
            # column still seen by an older read: "outstanding updates") waits for the
            # next write rather than failing this one.
            logger.warning("lookup indexes of %s not made yet: %s", self._connection.path,
                           exc)
            return
        self._indexes_looked_at = size
        self._all_indexed = existing_indexes(c) == set(LOOKUP_INDEXES)

    def _cluster_postings(self, c: duckdb.DuckDBPyConnection, *, always: bool = False
                          ) -> None:
        c.execute("BEGIN TRANSACTION")
        try:
            text_index.cluster_postings(c, always=always)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _scale_checkpoints(self, c: duckdb.DuckDBPyConnection) -> None:
        """A checkpoint rewrites every row group a write appended to, whole: a table's
        last row group holds up to 122,880 rows, so with DuckDB's fixed 16 MiB threshold
        each checkpoint cost more as the store grew (at 5,000 documents 1.1 s, rewriting
        the chunks and fingerprints written since the first). Checkpointing once the log
        reaches a share of the file keeps the rewriting per byte written constant."""
        path = self._connection.path
        if path == ":memory:":
            return
        try:
            size = os.path.getsize(path)
        except OSError:
            return
        threshold = max(MIN_CHECKPOINT_BYTES, int(size * CHECKPOINT_SHARE))
        if abs(threshold - self._checkpoint_threshold) > self._checkpoint_threshold / 8:
            c.execute(f"SET checkpoint_threshold = '{threshold}B'")
            self._checkpoint_threshold = threshold

    def _bytes_on_disk(self) -> int:
        path = self._connection.path
        if path == ":memory:":
            return 0
        return sum(os.path.getsize(p) for p in (path, path + ".wal") if os.path.exists(p))
