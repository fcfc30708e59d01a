"""Telling a queue database that is away (restarting, failed over, cut off) from one that
refused a statement, and waiting for it to come back.

procrastinate wraps every psycopg failure in `ConnectorException`, the driver's error as
its cause: a lost or refused connection (`OperationalError`, which the pool's timeout is
too) or a broken client (`InterfaceError`) pass by themselves once the server is back; a
statement the server refused (a job not in the state a call expected) does not."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")
FIRST_WAIT = 0.5
LONGEST_WAIT = 10.0

logger = logging.getLogger("sheaf.queue")


def is_outage(exc: BaseException) -> bool:
    """Whether `exc` (or the driver error it wraps) says the database cannot be reached
    for now, rather than that it refused what was asked."""
    import psycopg

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, psycopg.OperationalError | psycopg.InterfaceError | OSError):
            return True
        current = current.__cause__ or current.__context__
    return False


def reconnect_wait(failures: int) -> float:
    """Seconds before try `failures + 1` at a database that is away: half a second,
    doubling, at most ten (a restart takes seconds; a failover, tens)."""
    return min(LONGEST_WAIT, FIRST_WAIT * 2.0 ** max(0, failures - 1))


async def when_reachable(operation: Callable[[], Awaitable[T]], *, doing: str,
                         patience: float, giving_up: Callable[[], bool] = lambda: False
                         ) -> T:
    """`operation()`, tried again with `reconnect_wait` between tries while the database
    is away, for up to `patience` seconds (or until `giving_up()` says to stop); the last
    outage is raised then. A failure that is not an outage is raised at once."""
    began = time.monotonic()
    failures = 0
    while True:
        try:
            return await operation()
        except Exception as exc:
            if not is_outage(exc):
                raise
            failures += 1
            wait = reconnect_wait(failures)
            if giving_up() or time.monotonic() - began + wait > patience:
                raise
            if failures == 1:
                logger.warning("the queue database is unreachable while %s; trying again "
                               "until it is back", doing)
            await anyio.sleep(wait)
