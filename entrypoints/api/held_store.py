"""A store another sheaf process holds (ADR-0022): the `<store>.holder` file that says
who holds it and where it serves, and the wait for the lock that ends in `store_locked`
naming that process.

DuckDB lets one process open a file for writing and no other process open it at all.
The process that holds a store for long (`sheaf serve`, `sheaf mcp`, `sheaf ingest`)
serves the holder's API on a loopback port (`holder/store_holder.py`) and says so in
`<store>.holder` beside the file: its pid, its command, that address and a random
token, readable by its user alone. Another sheaf process finding the file runs its
command through that holder; without a reachable holder it waits briefly for the lock,
then fails with `store_locked`. Opening a store (`composition.open_store`) and the CLI
share that wait.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import attrs

from ...domain.errors import ErrorKind, SheafError

if TYPE_CHECKING:
    from .settings import Settings

T = TypeVar("T")
logger = logging.getLogger("sheaf.holder")
HOLDER_SUFFIX = ".holder"


@attrs.frozen
class HolderRecord:
    """What `<store>.holder` says: the holding process and where it serves the API."""

    pid: int
    command: str
    url: str
    token: str
    compatibility: dict[str, str] = attrs.field(factory=dict)
    """Digests of the settings results depend on (embedder, fetch limits, language
    model): a command with other settings is not run through this holder."""


def holder_path(store: Path) -> Path:
    return Path(f"{store}{HOLDER_SUFFIX}")


def compatibility(settings: Settings) -> dict[str, str]:
    """The settings that change what a store command answers or stores, each as a
    digest: equal settings give equal digests, and no API key reaches the file."""
    model = settings.language_model
    values = {"embedder": attrs.asdict(settings.embedder),
              "max_bytes": settings.fetch.max_bytes,
              "timeout": settings.fetch.total_timeout,
              "allow_private": settings.fetch.allow_private_network,
              "language_model": attrs.asdict(model) if model else None,
              "token_budget": settings.token_budget,
              "blobs": settings.blobs}
    return {name: hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:32]
            for name, value in values.items()}


def read_holder(store: Path) -> HolderRecord | None:
    """The store's holder, or None: no file, an unreadable one, one that cannot be
    believed (`holder_trust`: another user's, readable by others, a URL off loopback, a
    pid that is 1, another user's or not listening on that port), or one left by a
    process that is gone (removed then, so the next reader does not look again)."""
    from .holder_trust import file_refusal, holder_port, listener_refusal, process_refusal

    path = holder_path(store)
    try:
        # Not followed if it is a link; owner and mode are those of what was opened.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        refused = file_refusal(os.fstat(descriptor))
        if refused is not None:
            return _distrusted(path, refused)
        with os.fdopen(descriptor, "r", encoding="utf-8") as file:
            descriptor = -1
            data = json.loads(file.read(64 * 1024))
        record = HolderRecord(int(data["pid"]), str(data["command"]), str(data["url"]),
                              str(data["token"]), dict(data.get("compatibility") or {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        if descriptor >= 0:
            os.close(descriptor)
    port = holder_port(record.url)
    if port is None:
        return _distrusted(path, f"its address {record.url[:80]!r} is not "
                                 "http://127.0.0.1:PORT")
    refused = process_refusal(record.pid)
    if refused == "gone":
        with suppress(OSError):
            path.unlink()
        return None
    refused = refused or listener_refusal(record.pid, port)
    if refused is not None:
        return _distrusted(path, refused)
    return record


def _distrusted(path: Path, reason: str) -> None:
    """A holder file not believed: left where it is (it may be another user's), said
    once in the log, and the command opens the store itself."""
    logger.warning("sheaf: not trusting %s: %s", path, reason)
    return None


def publish(store: Path, record: HolderRecord) -> None:
    """Write `<store>.holder`, mode 0600 from its creation, replacing any other."""
    path = holder_path(store)
    scratch = path.with_name(f"{path.name}.{record.pid}.tmp")
    scratch.unlink(missing_ok=True)
    descriptor = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(attrs.asdict(record), file)
    os.replace(scratch, path)


def withdraw(store: Path, record: HolderRecord) -> None:
    """Remove `<store>.holder` if it is still this holder's."""
    path = holder_path(store)
    with suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("token") == record.token:
            path.unlink()


def command_line() -> str:
    """This process's sheaf command, for the holder file and `store_locked` messages."""
    words = [Path(sys.argv[0]).name, *sys.argv[1:3]] if sys.argv else ["sheaf"]
    return " ".join(w for w in words if not w.startswith("-")) or "sheaf"


def locked_error(store: Path, found: SheafError, waited: float) -> SheafError:
    """`store_locked`: who holds the store, and what to do about it."""
    holder = read_holder(store)
    who = (f"process {holder.pid} ({holder.command})" if holder is not None
           else found.message.rsplit(" held by ", 1)[-1] if " held by " in found.message
           else "another process")
    through = (" It serves list, show, sections, search, quote, status, space, remove, "
               "ingest and reconcile for sheaf commands with the same settings; this one "
               "it cannot serve." if holder is not None else "")
    return SheafError(ErrorKind.STORE_LOCKED,
                      f"the store at {store} is held by {who} and was not freed within "
                      f"{waited:g} s.{through} Stop that process, or wait longer "
                      "(SHEAF_LOCK_WAIT=SECONDS).")


def waiting_for_store(store: Path, wait: float, attempt: Callable[[], T]) -> T:
    """`attempt()`, tried again with backoff while it fails with `store_locked` (another
    process holds the file), for at most `wait` seconds; then `store_locked` naming the
    holder and what to do. The one wait every opener of a DuckDB store shares."""
    deadline = time.monotonic() + wait
    pause = 0.05
    while True:
        try:
            return attempt()
        except SheafError as exc:
            if exc.kind is not ErrorKind.STORE_LOCKED:
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                raise locked_error(store, exc, wait) from None
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.5)
