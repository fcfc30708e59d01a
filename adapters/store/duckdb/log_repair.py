"""`sheaf repair`: a store whose write-ahead log cannot be replayed, made to open again.

DuckDB checksums every entry of its log; the first damaged entry stops the replay, and
DuckDB refuses the file ("Corrupt WAL file") or, for some damage, aborts the process.
What came before the damage is sound: the log is cut just before the first damaged entry
(DuckDB treats a log that ends early as a torn write, and replays every transaction
complete before it), and tried again, in a child, until it replays; a log that still
cannot be replayed is set aside whole. The original log is always kept beside the file,
as `<store>.wal.damaged-<time>`. Then the indexes are rebuilt (ADR-0029)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import attrs

from ....domain.errors import ErrorKind, SheafError
from .log_replay import replay_in_child
from .store_lock import StoreLock

_ATTEMPTS = 16


@attrs.frozen
class LogRepair:
    """What `repair_store` did to the log."""

    log_bytes: int
    """The size of the log found (0: there was none)."""
    kept_bytes: int
    """How much of it was replayed into the file."""
    set_aside: str | None
    """Where the original log was kept, when it was damaged."""
    detail: str = ""


def repair_store(path: str) -> LogRepair:
    """Make the DuckDB store at `path` open: its log replayed as far as it is sound, the
    rest set aside, the indexes rebuilt. `store_locked` while another process holds it;
    `store_version` when the file itself (not its log) cannot be opened."""
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise SheafError(ErrorKind.STORE_NOT_FOUND, f"no store at {path}")
    lock = StoreLock(path)
    try:
        return _repair(path)
    finally:
        lock.release()


def _repair(path: str) -> LogRepair:
    log = Path(path + ".wal")
    size = log.stat().st_size if log.exists() else 0
    replay = replay_in_child(path)
    if replay.ok:
        return LogRepair(size, size, None, "the log replayed as it was")
    set_aside = f"{log}.damaged-{time.strftime('%Y%m%dT%H%M%S')}"
    if log.exists():
        shutil.copyfile(log, set_aside)
    kept = size
    for _ in range(_ATTEMPTS):
        cut = replay.corrupt_at
        if not log.exists() or cut is None or cut >= kept:
            break
        os.truncate(log, cut)
        kept = cut
        replay = replay_in_child(path)
        if replay.ok:
            return LogRepair(size, kept, set_aside,
                             f"the log was cut at byte {kept} of {size}, before its first "
                             "damaged entry")
    if log.exists():
        log.unlink()  # what cannot be replayed at all is set aside whole
    kept = 0
    replay = replay_in_child(path)
    if not replay.ok:
        raise SheafError(ErrorKind.STORE_VERSION,
                         f"the store at {path} cannot be opened even without its log "
                         f"({replay.message}): the file itself is damaged; restore it from "
                         "a copy, or ingest the sources again into a new store")
    return LogRepair(size, kept, set_aside if size else None,
                     "the log could not be replayed at all and was set aside whole"
                     if size else "there was no log; the indexes were rebuilt")
