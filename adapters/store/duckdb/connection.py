"""The DuckDB store's one connection, which every implementation of its ports runs its
SQL through: each statement in a worker thread, writes one at a time under a lock,
plain reads on pooled cursors of their own beside them."""

from __future__ import annotations

import os
import queue
import re
import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import duckdb

from ....domain.errors import ErrorKind, SheafError
from ...files.owner_only import owner_only_file
from .packaged_extensions import load_packaged_extension
from .store_lock import StoreLock

READ_CURSORS = 4
NEW_FILE_BLOCK_SIZE = 64 * 1024
"""The block size of a file this sheaf creates. DuckDB gives every index, and every
table's segments, whole blocks: at its default of 256 KB most of a small store was
blocks barely used (ADR-0048). Below 64 KB DuckDB stops bit-packing integers and
ALP-compressing floats (the full-text postings and vectors of a 10,000-snippet store
took 3.5x and 1.5x the space at 16 KB). A file keeps the block size it was made with."""
DEFAULT_BLOCK_SIZE = 256 * 1024
"""DuckDB's own, which the vss HNSW index needs (it refuses smaller blocks)."""
READ_ONLY_REASON = ("the store at {path} is open read-only: its disk refused writes (full, "
                    "or mounted read-only) when it was opened. Free space (or remount it "
                    "writable) and run the command again; reading works meanwhile.")
"""Reads that run at once beside the writer; more wait for a free cursor."""
T = TypeVar("T")


def one_snapshot(cursor: duckdb.DuckDBPyConnection,
                 work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """`work`'s statements on a read cursor in one transaction, so they read one
    snapshot (not for work that opens its own transaction)."""
    cursor.begin()
    try:
        result = work(cursor)
    except BaseException:
        cursor.rollback()
        raise
    cursor.commit()
    return result


class DuckDbConnection:
    """The connection to one DuckDB file (`writer`) and its read cursors. DuckDB allows
    one writer per file: `run` and `transaction` hold this object's lock for the whole
    of their work; `read` takes a free cursor instead (DuckDB reads a committed
    snapshot). The store's lock file, when given, goes with this object."""

    def __init__(self, path: str, store_lock: StoreLock | None, *,
                 read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        """Opened read-only because the disk refused writes: reads work, writes are
        refused with `storage` naming why."""
        self._store_lock = store_lock
        self._lock = threading.Lock()
        self._free_cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        self._full_text_loaded = False
        self.generation = 0
        """Counts the locked runs that may have written (and the reconnects): what a
        process keeps from the tables is as current as the generation it was read at.
        DuckDB lets no other process write while this one has the file, so every change
        passes through here."""
        self.connect()

    def connect(self) -> None:
        """Connect to the file, and make the read cursors (when the store opens, and
        again after compaction has closed the connection to swap the file)."""
        # LOADing the full-text extension is most of an open (about 0.1-0.2 s): done by
        # the first write or full-text search, so `sheaf list` and `show` do not pay it.
        # A reconnect (after compaction) loads it again before any cursor is handed out
        # when it was loaded before: a search waiting for a cursor stems at once.
        reload = self._full_text_loaded
        self._full_text_loaded = False
        self.generation += 1
        created = self.path != ":memory:" and not os.path.exists(self.path)
        # The block size is written in a new file's header and read from it afterwards:
        # the setting changes nothing for a file that exists.
        config = {"default_block_size": str(NEW_FILE_BLOCK_SIZE)} if created else {}
        try:
            self.writer = duckdb.connect(self.path, read_only=self.read_only, config=config)
        except duckdb.Error as exc:
            raise _open_failure(self.path, exc) from None
        if created:  # DuckDB creates it as the umask allows: its owner's alone instead
            owner_only_file(self.path)
        self._cursors = [self.writer.cursor() for _ in range(READ_CURSORS)]
        if reload:
            self.load_full_text_extension()
        for cursor in self._cursors:
            self._free_cursors.put(cursor)

    @property
    def full_text_loaded(self) -> bool:
        """Whether this connection has LOADed the full-text extension yet."""
        return self._full_text_loaded

    def load_full_text_extension(self) -> None:
        """LOAD the extension once per connection (under the write lock: its callers
        hold it); every cursor of the connection sees it."""
        if self._full_text_loaded:
            return
        if not load_packaged_extension(self.writer, "fts"):
            raise SheafError(ErrorKind.STORE_VERSION,
                             "the duckdb-extension-fts package holds no extension binary")
        self._full_text_loaded = True

    async def read(self, work: Callable[[duckdb.DuckDBPyConnection], T], *,
                   snapshot: bool = False) -> T:
        """A plain read on a cursor of its own, beside writes rather than behind them
        (DuckDB reads a committed snapshot). The cursors are made when the store opens:
        making one later would touch the connection a write may be using. With
        `snapshot`, all of `work`'s statements read one snapshot (one transaction):
        for reads whose later statements complete the earlier ones' rows (a chunk's
        text from its section or its version's Markdown), which a removal committed
        between two statements would otherwise leave half read."""
        def on_cursor() -> T:
            cursor = self._free_cursors.get()
            try:
                return one_snapshot(cursor, work) if snapshot else work(cursor)
            finally:
                self._free_cursors.put(cursor)

        return await anyio.to_thread.run_sync(on_cursor)

    def read_now(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T | None:
        """`work` (which returns a value, never None) on a free read cursor in the
        caller's thread, or None, without running it, when no cursor is free or a write
        is running. For statements well under a millisecond: on a loaded machine the
        hand-over to a thread and back cost 10-20 ms of waiting, more than the work.
        Never while a write runs: its commit may checkpoint, and a statement starting
        then would wait for it on the caller's (the event loop's) thread."""
        if self._lock.locked():
            return None
        try:
            cursor = self._free_cursors.get_nowait()
        except queue.Empty:
            return None
        try:
            return work(cursor)
        finally:
            self._free_cursors.put(cursor)

    async def run(self, work: Callable[[duckdb.DuckDBPyConnection], T], *,
                  writes: bool = True) -> T:
        """`work` on the writer, the write lock held; unless it only reads (`writes`
        False), the generation moves on once it is done, committed or not."""
        def locked() -> T:
            with self._lock:
                # Every write may index snippets with the extension's `stem()`.
                self.load_full_text_extension()
                try:
                    return work(self.writer)
                except duckdb.InvalidInputException as exc:
                    if self.read_only and "read-only mode" in str(exc):
                        raise SheafError(ErrorKind.STORAGE, READ_ONLY_REASON.format(
                            path=self.path)) from None
                    raise
                finally:
                    if writes:
                        # After the work, never before: a reader that saw the old
                        # generation may have read the old rows, never the reverse.
                        self.generation += 1
                    _write_ahead_log_private(self.path)

        return await anyio.to_thread.run_sync(locked)

    async def transaction(self, work: Callable[[duckdb.DuckDBPyConnection], T], *,
                          after_commit: Callable[[], None]) -> T:
        """`work` in one transaction on the writer, rolled back if it raises; then
        `after_commit`, the lock still held, so that no locked read comes between the
        commit and what it drops."""
        def atomic(connection: duckdb.DuckDBPyConnection) -> T:
            connection.execute("BEGIN TRANSACTION")
            try:
                result = work(connection)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            after_commit()
            return result

        return await self.run(atomic)

    def end_idle_read_transactions(self) -> None:
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

    def close_cursors(self) -> None:
        """Take every read cursor back, waiting for the readers that have one, and close
        them (the write lock held: compaction is about to close the writer)."""
        for _ in range(READ_CURSORS):
            self._free_cursors.get().close()

    async def aclose(self) -> None:
        """Close the cursors and the connection (DuckDB checkpoints at close)."""
        def close(c: duckdb.DuckDBPyConnection) -> None:
            for cursor in self._cursors:
                cursor.close()
            c.close()

        await self.run(close)

    def release_lock(self) -> None:
        """Drop the store's lock file (after `aclose`: the store's last step)."""
        if self._store_lock is not None:
            self._store_lock.release()


def block_size(c: duckdb.DuckDBPyConnection) -> int:
    """The block size of the file `c` is connected to (DuckDB's default in memory)."""
    row = c.execute("SELECT block_size FROM pragma_database_size() "
                    "WHERE database_name = current_database()").fetchone()
    return int(row[0]) if row and row[0] else DEFAULT_BLOCK_SIZE


def _write_ahead_log_private(path: str) -> None:
    """The write-ahead log its owner's alone. DuckDB makes it afresh, as the umask
    allows, on the first write after each checkpoint; `sheaf` commands run under
    umask 077 (ADR-0028), a program using the library may not."""
    if path == ":memory:":
        return
    try:
        mode = os.stat(path + ".wal").st_mode
    except OSError:
        return  # none yet, or checkpointed away
    if mode & 0o077:
        owner_only_file(path + ".wal")


_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.*?) \(PID (\d+)\)", re.S)


def _open_failure(path: str, exc: duckdb.Error) -> SheafError:
    """DuckDB's "Conflicting lock" is another process holding the file: `store_locked`,
    naming that process; anything else is a file this DuckDB cannot open."""
    text = str(exc)
    if "Conflicting lock" in text or "Could not set lock" in text:
        found = _LOCK_HOLDER.search(text)
        held = f" by process {found.group(2)} ({found.group(1).strip()})" if found else ""
        return SheafError(ErrorKind.STORE_LOCKED, f"the store at {path} is held{held}")
    return SheafError(ErrorKind.STORE_VERSION, f"cannot open the store at {path}: {exc}")
