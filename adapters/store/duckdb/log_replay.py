"""Replaying a DuckDB write-ahead log where a crash cannot take the caller with it.

A log left by a writer that died is replayed, checkpointed and the indexes rebuilt the
next time the file opens. A damaged log can make DuckDB abort the process outright
(SIGABRT, "pure virtual method called", during the index rebuild) where no Python
handler runs, so that first open after an unclean shutdown is done in a child process:
if the child dies, the caller is still alive to say what happened and what to do
(`sheaf repair`, ADR-0029). The child's work stays on the file when it succeeds (the
log is checkpointed into it), so the caller then opens a clean file.

    python -m sheaf.adapters.store.duckdb.log_replay PATH     (the child's entry)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import attrs

from ....domain.errors import ErrorKind, SheafError

_CORRUPT_AT = re.compile(r"Corrupt WAL file: entry at byte position (\d+)")
_OUT_OF_SPACE = ("No space left on device", "Read-only file system", "Disk quota exceeded",
                 "Permission denied")
ABORT_VARIABLE = "SHEAF_TEST_ABORT_AT"
"""Set to `log-replay` (tests only), the child aborts as DuckDB does on some damaged
logs: what a caller must survive."""
_CHILD_TIMEOUT = 600.0
"""Replaying a large log and rebuilding the indexes of a large store takes a while; a
child that takes longer than this is stuck."""


@attrs.frozen
class Replay:
    """How a child's replay of the log ended."""

    ok: bool
    message: str = ""
    signal_number: int | None = None
    """The signal the child died of (DuckDB aborted), if it did."""

    @property
    def corrupt_at(self) -> int | None:
        """Where DuckDB found the first damaged entry of the log, when it says so."""
        found = _CORRUPT_AT.search(self.message)
        return int(found.group(1)) if found else None

    @property
    def cannot_write(self) -> bool:
        """The replay failed because the disk refused to be written (full, read-only)."""
        return any(reason in self.message for reason in _OUT_OF_SPACE)


def replay_in_child(path: str) -> Replay:
    """Replay `path`'s log, checkpoint it and rebuild the indexes in a child process."""
    command = [sys.executable, "-m", "sheaf.adapters.store.duckdb.log_replay", path]
    try:
        done = subprocess.run(command, capture_output=True, timeout=_CHILD_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return Replay(False, f"replaying the log took over {_CHILD_TIMEOUT:.0f} s")
    message = done.stderr.decode(errors="replace").strip()
    if done.returncode == 0:
        return Replay(True)
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        last = message.splitlines()[-1] if message else ""
        return Replay(False, f"DuckDB aborted ({name}) replaying the log"
                      + (f": {last}" if last else ""), -done.returncode)
    return Replay(False, message.splitlines()[-1] if message else f"exit {done.returncode}")


def damaged_log_error(path: str, replay: Replay) -> SheafError:
    """What to tell a caller whose store's log cannot be replayed."""
    return SheafError(ErrorKind.STORE_VERSION,
                      f"the store at {path} cannot be opened: its write-ahead log "
                      f"{path}.wal, left by a writer that did not close, is damaged "
                      f"({replay.message}). Run `sheaf repair --store {path}`: it keeps "
                      "every transaction the log holds before the damage, sets the "
                      "damaged log aside and rebuilds the indexes.")


def _child(path: str) -> int:
    from .connection import DuckDbConnection
    from .maintenance import repair_indexes
    from .schema import migrate

    try:
        connection = DuckDbConnection(path, None)
        if os.environ.get(ABORT_VARIABLE) == "log-replay":
            os.abort()  # what DuckDB does on some damaged logs, on demand for the tests
        migrate(connection)
        repair_indexes(connection, True, True)
        connection.writer.close()  # checkpoints: the log is now in the file
    except SheafError as exc:
        print(exc.message, file=sys.stderr)
        return 3
    except Exception as exc:  # DuckDB's own errors: the parent reads the message
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(_child(sys.argv[1]))
