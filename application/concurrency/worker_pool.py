"""A bounded pool of worker threads for CPU-heavy work, so the event loop never waits on
parsing, extraction or chunking."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

import anyio

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class WorkerPool:
    """Runs functions in anyio worker threads, at most `size` at once (the CPU count by
    default). Share one pool between the use cases of a process."""

    def __init__(self, size: int | None = None) -> None:
        self.limiter = anyio.CapacityLimiter(size or max(2, os.cpu_count() or 2))

    async def run(self, func: Callable[[*Ts], T], *args: *Ts) -> T:
        return await anyio.to_thread.run_sync(func, *args, limiter=self.limiter)
