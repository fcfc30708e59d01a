"""Running one coroutine per item, a bounded number at a time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

import anyio

from ...domain.errors import first_failure

T = TypeVar("T")


async def for_each_bounded(items: Iterable[T], work: Callable[[T], Awaitable[object]],
                           limit: int | anyio.CapacityLimiter) -> None:
    """Await `work(item)` for every item, at most `limit` at once (an int, or a limiter
    shared with other work). The first failure cancels the rest and is raised as itself,
    not as an exception group, so callers see one typed error."""
    limiter = limit if isinstance(limit, anyio.CapacityLimiter) else \
        anyio.CapacityLimiter(max(1, limit))

    async def one(item: T) -> None:
        async with limiter:
            await work(item)

    try:
        async with anyio.create_task_group() as group:
            for item in items:
                group.start_soon(one, item)
    except BaseExceptionGroup as failures:
        raise first_failure(failures) from None
