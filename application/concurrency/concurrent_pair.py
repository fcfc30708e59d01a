"""Two awaitables run at once: independent reads of one request overlap instead of
queueing one behind the other."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar, cast

import anyio

from ...domain.errors import first_failure

A = TypeVar("A")
B = TypeVar("B")


async def both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """The results of `first` and `second`, run concurrently. The first failure cancels
    the other and is raised as itself, not as an exception group."""
    found: list[object] = [None, None]

    async def run(at: int, work: Awaitable[object]) -> None:
        found[at] = await work

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run, 0, first)
            group.start_soon(run, 1, second)
    except BaseExceptionGroup as failures:
        raise first_failure(failures) from None
    return cast(A, found[0]), cast(B, found[1])
