"""Politeness towards one host: a pause between request starts, longer when the host
asks for it (robots.txt `Crawl-delay`, `Retry-After`)."""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio


class HostPacer:
    """Spaces request starts at least `delay` seconds apart."""

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.delay = delay
        self._clock = clock
        self._next = 0.0
        self._lock = anyio.Lock()

    async def wait_turn(self) -> None:
        async with self._lock:
            pause = self._next - self._clock()
            if pause > 0:
                await anyio.sleep(pause)
            self._next = self._clock() + self.delay

    def hold_off(self, seconds: float) -> None:
        """No request before `seconds` from now (the server said to wait)."""
        self._next = max(self._next, self._clock() + seconds)
