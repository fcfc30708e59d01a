"""Running a command's work on `sheaf.Knowledge`: open it with the command's settings,
run the coroutine, close it, and turn a non-zero result into the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from time import monotonic
from typing import TYPE_CHECKING, Any

import anyio
import click

from sheaf.entrypoints.settings import Settings

if TYPE_CHECKING:
    from sheaf.entrypoints.knowledge import Knowledge


def with_knowledge(settings: Settings, work: Callable[[Knowledge], Awaitable[int | None]],
                   **options: Any) -> None:
    """Run `work` on the knowledge base `settings` name; exit with what it returns."""

    async def run() -> int | None:
        from sheaf.entrypoints.knowledge import Knowledge

        async with Knowledge.open(settings=settings, **options) as kb:
            return await work(kb)

    code = anyio.run(run)
    if code:
        raise click.exceptions.Exit(code)


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
