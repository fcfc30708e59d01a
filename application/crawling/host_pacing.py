"""Politeness towards one host: a pause between request starts, longer when the host
asks for it (robots.txt `Crawl-delay`, `Retry-After`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio


class HostPacer:
    """Spaces request starts at least `delay` seconds apart (the delay in force when the
    next request starts, so a delay raised after a request still applies to it)."""

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        self.delay = delay
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None
        self._not_before = 0.0
        self._lock = anyio.Lock()

    async def wait_turn(self) -> None:
        async with self._lock:
            due = self._not_before if self._last is None else max(
                self._not_before, self._last + self.delay)
            pause = due - self._clock()
            if pause > 0:
                await self._sleep(pause)
            self._last = self._clock()

    def hold_off(self, seconds: float) -> None:
        """No request before `seconds` from now (the server said to wait)."""
        self._not_before = max(self._not_before, self._clock() + seconds)
