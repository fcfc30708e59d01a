"""Who holds a store, and how another sheaf process reaches it (ADR-0022).

DuckDB lets one process open a file for writing and no other process open it at all.
The process that holds a store for long (`sheaf serve`, `sheaf mcp`, `sheaf ingest`)
serves the holder's API (`holder_api`) on a loopback port and says so in
`<store>.holder` beside the file: its pid, its command, that address and a random
token, readable by its user alone. Another sheaf process finding the file runs its
command through that holder (`HeldKnowledge`); without a reachable holder it waits
briefly for the lock, then fails with `store_locked`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import attrs

from ...domain.errors import ErrorKind, SheafError

if TYPE_CHECKING:
    from aiohttp import web

    from ..api.knowledge_api import KnowledgeApi
    from ..api.settings import Settings
    from .holder_api import HeldRequests

T = TypeVar("T")
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def read_holder(store: Path) -> HolderRecord | None:
    """The store's holder, or None: no file, an unreadable one, or one left by a process
    that is gone (removed then, so the next reader does not look again)."""
    path = holder_path(store)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        record = HolderRecord(int(data["pid"]), str(data["command"]), str(data["url"]),
                              str(data["token"]), dict(data.get("compatibility") or {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not _alive(record.pid):
        with suppress(OSError):
            path.unlink()
        return None
    return record


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


@asynccontextmanager
async def holding(kb: KnowledgeApi, settings: Settings, command: str | None = None
                  ) -> AsyncIterator[HolderRecord | None]:
    """Serve the holder's API (`holder_api`) on `kb` at a loopback port with a fresh
    token and publish it in `<store>.holder` until the block ends (the file goes first,
    then the server, once the requests other processes sent it have been answered). A
    PostgreSQL store is shared by every process itself: nothing is served or published
    (None)."""
    if settings.store_url is not None:
        yield None
        return
    import secrets  # a holder's token; a command that only reads a holder file needs none

    import anyio
    from aiohttp import web

    from .holder_api import HeldRequests, build_holder_app

    token = secrets.token_urlsafe(32)
    requests = HeldRequests()
    runner = web.AppRunner(build_holder_app(kb, token, requests), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        record = HolderRecord(os.getpid(), command or command_line(),
                              f"http://127.0.0.1:{port}", token, compatibility(settings))
        publish(settings.store, record)
        try:
            yield record
        finally:
            withdraw(settings.store, record)
            with anyio.CancelScope(shield=True):
                await _answer_the_connected(runner, site, requests)
    finally:
        with anyio.CancelScope(shield=True):
            await runner.cleanup()


QUIET_SECONDS = 10.0
"""How long a holder that is done keeps a connection that sends nothing: a command going
through it sends its next request at once."""


async def _answer_the_connected(runner: web.AppRunner, site: web.TCPSite,
                                requests: HeldRequests) -> None:
    """Stop taking connections (a command finding none opens the store once it is free),
    then answer the commands already connected to the end: while a request runs, and
    while a connection stays open with the last request under `QUIET_SECONDS` ago
    (aiohttp would cancel a running one after its shutdown timeout)."""
    import anyio

    await site.stop()
    requests.ended = max(requests.ended, time.monotonic())
    server = runner.server
    while requests.running or (server is not None and server.connections
                               and time.monotonic() - requests.ended < QUIET_SECONDS):
        await anyio.sleep(0.05)
