"""What a DuckDB file holds, told apart without opening it: a digest that changes with
every commit and checkpoint, read with the standard library alone (ADR-0024).

A commit appends to the write-ahead log (`<file>.wal`), which only grows until a
checkpoint; a checkpoint writes one of the two database headers (their iteration number
goes up) and empties the log. So the log's size and the first three 4 KiB blocks of both
files (the main header and the two database headers) differ after any committed change.
Their sizes, modification times and inode numbers are folded in too: they only make the
digest change more often (a compaction swaps in a new file), never less.
"""

from __future__ import annotations

import hashlib
import os

HEADER_BYTES = 3 * 4096
WAL_SUFFIX = ".wal"


def duckdb_file_state(path: str) -> str | None:
    """A digest of the DuckDB file at `path` and its log; None when there is no file or it
    cannot be read."""
    digest = hashlib.sha256()
    for name in (path, path + WAL_SUFFIX):
        try:
            with open(name, "rb") as file:
                status = os.fstat(file.fileno())
                head = file.read(HEADER_BYTES)
        except FileNotFoundError:
            if name == path:
                return None
            digest.update(b"no log;")
            continue
        except OSError:
            return None
        digest.update(f"{status.st_size}:{status.st_mtime_ns}:{status.st_ino};".encode())
        digest.update(head)
    return digest.hexdigest()
