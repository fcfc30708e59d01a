"""What a DuckDB file holds, told apart without opening it: a state that changes with
every commit and checkpoint, read with the standard library alone (ADR-0024).

A commit appends to the write-ahead log (`<file>.wal`), which only grows until a
checkpoint; a checkpoint writes one of the two database headers (their iteration number
goes up) and empties the log. So the log's size and the first three 4 KiB blocks of both
files (the main header and the two database headers) differ after any committed change.
Their modification times and inode numbers are part of it too: they only make the state
change more often (a compaction swaps in a new file), never less.
"""

from __future__ import annotations

import os
import zlib

HEADER_BYTES = 3 * 4096
WAL_SUFFIX = ".wal"
# Beside the log, DuckDB 1.5 keeps commits made during a checkpoint and a log being
# replayed in files of their own.
LOGS = (WAL_SUFFIX, WAL_SUFFIX + ".checkpoint", WAL_SUFFIX + ".recovery")


def duckdb_file_state(path: str) -> str | None:
    """What the DuckDB file at `path` and its log are now, as one string; None when there
    is no file or it cannot be read. (A CRC of the headers, not a cryptographic digest:
    it tells states of one file apart, beside their sizes, and hashlib's OpenSSL costs
    `sheaf list` a third of its start.)"""
    parts = []
    for name in (path, *(path + suffix for suffix in LOGS)):
        try:
            with open(name, "rb") as file:
                status = os.fstat(file.fileno())
                head = file.read(HEADER_BYTES)
        except FileNotFoundError:
            if name == path:
                return None
            parts.append("-")
            continue
        except OSError:
            return None
        parts.append(f"{status.st_size}:{status.st_mtime_ns}:{status.st_ino}:"
                     f"{zlib.crc32(head):08x}")
    return ";".join(parts)
