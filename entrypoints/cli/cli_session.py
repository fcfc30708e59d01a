"""Running a command's work on a knowledge base: on `sheaf.Knowledge` opened with the
command's settings, or, when another process holds the store and serves it, on
`HeldKnowledge` through that process (ADR-0022); then the exit code."""

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
    from ..api.knowledge_api import KnowledgeApi

Work = Callable[["KnowledgeApi"], Awaitable["int | None"]]
READ_SETTINGS = ("embedder", "blobs")
"""What a reading command's answer depends on besides the store: the embedder (search's
auto mode, the query's vector) and where the blobs are (Markdown, quotes)."""


def with_knowledge_api(settings: Settings, work: Work, *,
                       shared: Sequence[str] | None = READ_SETTINGS,
                       hold: bool = False) -> None:
    """Run `work` on the knowledge base `settings` name; exit with what it returns.

    When another process holds the store and serves it, `work` runs through it, if
    that process has the same `shared` settings (None: never through a holder); else
    on the store opened here. `hold` makes this process such a holder while `work`
    runs (long commands: ingest)."""
    _exit(_run(settings, work, shared, hold, {}))


def with_knowledge(settings: Settings,
                   work: Callable[[Knowledge], Awaitable[int | None]], *,
                   hold: bool = False, **options: Any) -> None:
    """Run `work` on `sheaf.Knowledge` opened here with `settings` and `options` (what
    only an opened store does: reindex, compact, token counts, evaluation); exit with
    what it returns. `hold` makes this process the store's holder while `work` runs."""
    _exit(_run(settings, work, None, hold, options))


def _exit(code: int) -> None:
    if code:
        raise click.exceptions.Exit(code)


def _run(settings: Settings, work: Callable[[Any], Awaitable[int | None]],
         shared: Sequence[str] | None, hold: bool, options: dict[str, Any]) -> int:
    """Through the holder when there is one that can serve; else here, once the store is
    free. Both are tried again until SHEAF_LOCK_WAIT is spent: a holder may publish
    itself just after this process found the store locked."""
    import attrs

    from ...domain.errors import ErrorKind, SheafError
    from ..api.held_store import waiting_for_store

    if settings.store_url is not None:  # a PostgreSQL store takes every process itself
        shared = None
    once = attrs.evolve(settings, lock_wait=0.0)

    def attempt() -> int | SheafError:
        if shared is not None:
            try:
                code = _through_holder(settings, work, shared)
            except SheafError as exc:
                if exc.kind is not ErrorKind.STORE_LOCKED:
                    raise
                return exc  # the holder's own answer, not this process's wait
            if code is not None:
                return code
        import anyio

        return anyio.run(_direct, once, work, hold, options)

    outcome = waiting_for_store(settings.store, settings.lock_wait, attempt)
    if isinstance(outcome, SheafError):
        raise outcome
    return outcome


async def _direct(settings: Settings, work: Callable[[Any], Awaitable[int | None]],
                  hold: bool, options: dict[str, Any]) -> int:
    from ..api.knowledge import Knowledge

    async with Knowledge.open(settings=settings, **options) as kb:
        if not hold:
            return await work(kb) or 0
        from ..holder.store_holder import holding

        async with holding(kb, settings):
            return await work(kb) or 0


def _through_holder(settings: Settings, work: Work, shared: Sequence[str]) -> int | None:
    """`work`'s exit code when a live holder with these settings answered; None to open
    the store here (no holder, other settings, or it went away before answering)."""
    from ..api.held_store import compatibility, read_holder

    holder = read_holder(settings.store)
    if holder is None:
        return None
    mine = compatibility(settings)
    if any(holder.compatibility.get(key) != mine[key] for key in shared):
        return None
    import asyncio  # not anyio: what a command through a holder runs needs none of it

    from ..holder.held_knowledge import HeldKnowledge
    from ..holder.holder_client import HolderClient, HolderUnreachable

    client = HolderClient(holder)
    try:
        return asyncio.run(work(HeldKnowledge(client, settings.space))) or 0
    except HolderUnreachable:
        return None
    finally:
        client.close()  # the holder, if it is done, waits for this connection


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
