"""The DuckDB store's own lock file, `<store>.lock`: held by the one object that has the
store, through the moment compaction has no DuckDB connection open."""

from __future__ import annotations

import fcntl
import os
import weakref

from ....domain.errors import ErrorKind, SheafError

LOCK_SUFFIX = ".lock"


class StoreLock:
    """An exclusive lock on `<store>.lock` for as long as this object has the store.

    DuckDB's own lock goes with its connection, and compaction closes the connection to
    swap the rewritten file in: without this lock another sheaf process waiting for the
    store could open the old file in that moment and write to a file being replaced."""

    def __init__(self, path: str) -> None:
        fd = os.open(path + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SheafError(ErrorKind.STORE_LOCKED,
                             f"the store at {path} is held by another sheaf process") from None
        # Dropped by `release`, or when this object is collected (as DuckDB's lock is).
        self._close = weakref.finalize(self, os.close, fd)

    def release(self) -> None:
        """Drop the lock (closing the descriptor drops it); once, later calls do nothing."""
        self._close()
