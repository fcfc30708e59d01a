"""Running a command's work on `sheaf.Knowledge`: open it with the command's settings,
run the coroutine, close it, and turn a non-zero result into the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from time import monotonic
from typing import TYPE_CHECKING, Any

import click

from ..api.settings import Settings

if TYPE_CHECKING:
    from ..api.knowledge import Knowledge
    from ..holder.holder_client import HolderClient

Remote = Callable[["HolderClient"], "int | None"]
READ_SETTINGS = ("embedder", "blobs")
"""What a reading command's answer depends on besides the store: the embedder (search's
auto mode, the query's vector) and where the blobs are (Markdown, quotes)."""


def with_knowledge(settings: Settings, work: Callable[[Knowledge], Awaitable[int | None]],
                   *, remote: Remote | None = None,
                   remote_settings: Sequence[str] = READ_SETTINGS, hold: bool = False,
                   **options: Any) -> None:
    """Run `work` on the knowledge base `settings` name; exit with what it returns.

    When another process holds the store and serves it (ADR-0022), `remote` runs the
    command through it instead, if that process has the same `remote_settings`; `hold`
    makes this process such a holder while `work` runs (long commands: ingest)."""
    code = _run(settings, work, remote, remote_settings, hold, options)
    if code:
        raise click.exceptions.Exit(code)


def _run(settings: Settings, work: Callable[[Knowledge], Awaitable[int | None]],
         remote: Remote | None, keys: Sequence[str], hold: bool,
         options: dict[str, Any]) -> int:
    """Through the holder when there is one that can serve; else here, once the store is
    free. Both are tried again until SHEAF_LOCK_WAIT is spent: a holder may publish
    itself just after this process found the store locked."""
    import anyio
    import attrs

    from ...domain.errors import ErrorKind, SheafError
    from ..holder.store_holder import waiting_for_store

    if settings.store_url is not None:  # a PostgreSQL store takes every process itself
        remote = None
    once = attrs.evolve(settings, lock_wait=0.0)

    def attempt() -> int | SheafError:
        if remote:
            try:
                code = _through_holder(settings, remote, keys)
            except SheafError as exc:
                if exc.kind is not ErrorKind.STORE_LOCKED:
                    raise
                return exc  # the holder's own answer, not this process's wait
            if code is not None:
                return code
        return anyio.run(_direct, once, work, hold, options)

    outcome = waiting_for_store(settings.store, settings.lock_wait, attempt)
    if isinstance(outcome, SheafError):
        raise outcome
    return outcome


async def _direct(settings: Settings, work: Callable[[Knowledge], Awaitable[int | None]],
                  hold: bool, options: dict[str, Any]) -> int:
    from ..api.knowledge import Knowledge

    async with Knowledge.open(settings=settings, **options) as kb:
        if not hold:
            return await work(kb) or 0
        from ..holder.store_holder import holding

        async with holding(kb, settings):
            return await work(kb) or 0


def _through_holder(settings: Settings, remote: Remote,
                    keys: Sequence[str]) -> int | None:
    """`remote`'s exit code when a live holder with these settings answered; None to
    open the store here (no holder, other settings, or it just went away)."""
    from ..holder.store_holder import compatibility, read_holder

    holder = read_holder(settings.store)
    if holder is None:
        return None
    mine = compatibility(settings)
    if any(holder.compatibility.get(key) != mine[key] for key in keys):
        return None
    from ..holder.holder_client import HolderClient, HolderUnreachable

    try:
        return remote(HolderClient(holder, settings.space)) or 0
    except HolderUnreachable:
        return None


def echo_json(payload: object, *, indent: int | None = None) -> None:
    """One JSON document on stdout, flushed (a reader of a batch sees each line as it
    comes)."""
    click.echo(json.dumps(payload, ensure_ascii=False, indent=indent))
    sys.stdout.flush()


def interactive(as_json: bool) -> bool:
    """Progress bars and overwritten lines only for a person at a terminal."""
    return not as_json and sys.stderr.isatty()


@contextmanager
def progress(label: str, total: int, shown: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (count, rate, ETA) when `shown`; yields `advance(n)`."""
    if not shown or total <= 0:
        yield lambda _: None
        return
    started = monotonic()

    def rate(done: int | None) -> str:
        elapsed = monotonic() - started
        return f"{(done or 0) / elapsed:.1f}/s" if elapsed > 0 else ""

    with click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True,
                           show_eta=True, item_show_func=rate) as bar:
        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            bar.update(count, done)

        yield advance
