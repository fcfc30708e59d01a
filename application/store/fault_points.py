"""Named points inside multi-step store operations where a test may stop the process.

A kill between two steps (the database committed, the blobs not yet deleted) is what
recovery must survive; timing a kill to land there is a race, so the operation awaits
its fault point by name, and a test's hook pauses at the one it wants killed there. In
normal use the hook does nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

FaultPoint = Callable[[str], Awaitable[None]]


async def no_fault(point: str) -> None:
    """The hook outside tests: every point passes straight through."""
