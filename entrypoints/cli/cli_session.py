"""Running a command's work on a knowledge base: on `sheaf.Knowledge` opened with the
command's settings, or, when another process holds the store and serves it, on
`HeldKnowledge` through that process (ADR-0022); then the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, Any, Literal

import click

from ..api.settings import Settings

if TYPE_CHECKING:
    from ..api.knowledge import Knowledge
    from ..api.knowledge_api import KnowledgeApi

Work = Callable[["KnowledgeApi"], Awaitable["int | None"]]
Missing = Literal["refuse", "create", "in_memory"]
"""What a command does when its DuckDB file does not exist: refuse with
`store_not_found` (every command that only reads: a mistyped --store must not leave an
empty store behind), create it (ingest, setting a policy), or run on an empty store in
memory (a dry run, which must write nothing)."""
READ_SETTINGS = ("embedder", "blobs")
"""What a reading command's answer depends on besides the store: the embedder (search's
auto mode, the query's vector) and where the blobs are (Markdown, quotes)."""


def with_knowledge_api(settings: Settings, work: Work, *,
                       shared: Sequence[str] | None = READ_SETTINGS,
                       hold: bool = False, missing: Missing = "refuse") -> None:
    """Run `work` on the knowledge base `settings` name; exit with what it returns.

    When another process holds the store and serves it, `work` runs through it, if
    that process has the same `shared` settings (None: never through a holder); else
    on the store opened here. `hold` makes this process such a holder while `work`
    runs (long commands: ingest). `missing` says what a DuckDB file that does not exist
    means (`Missing`)."""
    _exit(_run(settings, work, shared, hold, {}, missing))


def with_knowledge(settings: Settings,
                   work: Callable[[Knowledge], Awaitable[int | None]], *,
                   hold: bool = False, missing: Missing = "refuse",
                   **options: Any) -> None:
    """Run `work` on `sheaf.Knowledge` opened here with `settings` and `options` (what
    only an opened store does: reindex, compact, token counts, evaluation); exit with
    what it returns. `hold` makes this process the store's holder while `work` runs."""
    _exit(_run(settings, work, None, hold, options, missing))


def absent_store(settings: Settings) -> str | None:
    """Where the DuckDB file `settings` name was looked for, and what chose that place,
    when there is no file there; None when it exists (or the store is PostgreSQL's)."""
    if settings.store_url is not None or Path(settings.store).exists():
        return None
    chosen = "the default location"
    context = click.get_current_context(silent=True)
    if context is not None and "store" in context.params:
        source = context.get_parameter_source("store")
        if source is click.core.ParameterSource.COMMANDLINE:
            chosen = "--store"
        elif source is click.core.ParameterSource.ENVIRONMENT:
            chosen = "SHEAF_STORE"
    return f"{Path(settings.store).absolute()} (from {chosen})"


def _missing_store(settings: Settings, missing: Missing, shared: Sequence[str] | None,
                   hold: bool, options: dict[str, Any]
                   ) -> tuple[Sequence[str] | None, bool, dict[str, Any]]:
    """`_run`'s holder settings and `Knowledge.open` options for a store that may not
    exist yet; refuses with `store_not_found` when a reading command's store is not
    there."""
    if missing == "create":
        return shared, hold, options
    where = absent_store(settings)
    if where is None:
        return shared, hold, options
    if missing == "refuse":
        from ...domain.errors import ErrorKind, SheafError

        raise SheafError(ErrorKind.STORE_NOT_FOUND,
                         f"no store at {where}; check --store or SHEAF_STORE, or create "
                         "one with `sheaf ingest`")
    from ...adapters.store.memory.knowledge_store import MemoryKnowledgeStore
    from ..api.composition import InjectedAdapters

    # No file, so no holder either: an empty store in memory, written nowhere.
    return None, False, {**options, "adapters": InjectedAdapters(
        store=MemoryKnowledgeStore())}


def _exit(code: int) -> None:
    if code:
        raise click.exceptions.Exit(code)


def _run(settings: Settings, work: Callable[[Any], Awaitable[int | None]],
         shared: Sequence[str] | None, hold: bool, options: dict[str, Any],
         missing: Missing) -> int:
    """Through the holder when there is one that can serve; else here, once the store is
    free. Both are tried again until SHEAF_LOCK_WAIT is spent: a holder may publish
    itself just after this process found the store locked."""
    import attrs

    from ...domain.errors import ErrorKind, SheafError
    from ..api.held_store import waiting_for_store

    shared, hold, options = _missing_store(settings, missing, shared, hold, options)
    if "adapters" in options:  # nothing on disk to wait for
        import anyio

        return anyio.run(_direct, settings, work, False, options)

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


class Progress:
    """A batch's progress on stderr: `advance(n)` moves the bar, `note(line)` prints a
    line above it. Without a bar, notes are plain lines."""

    def __init__(self, bar: Any = None) -> None:
        self._bar = bar
        self._done = 0

    def __call__(self, count: int) -> None:
        self.advance(count)

    def advance(self, count: int) -> None:
        if self._bar is not None:
            self._done += count
            self._bar.update(count, self._done)

    def note(self, line: str) -> None:
        """`line` on a line of its own: the bar, which ends with no newline, is cleared
        first and drawn again after it, so the two never share a line."""
        if self._bar is None:
            click.echo(line, err=True)
            return
        sys.stderr.write("\r\x1b[2K")
        click.echo(line, err=True)
        self._bar.render_progress()


@contextmanager
def progress(label: str, total: int, shown: bool) -> Iterator[Progress]:
    """A progress bar on stderr (count, rate, ETA) when `shown`."""
    if not shown or total <= 0:
        yield Progress()
        return
    started = monotonic()

    def rate(done: int | None) -> str:
        elapsed = monotonic() - started
        return f"{(done or 0) / elapsed:.1f}/s" if elapsed > 0 else ""

    with click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True,
                           show_eta=True, item_show_func=rate) as bar:
        yield Progress(bar)
