"""A unit of work that records its writes as steps and applies them together at commit:
how the DuckDB store and the in-memory fake both give the use case one transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Generic, Self, TypeVar

Target = TypeVar("Target")
Step = Callable[[Target], None]
"""The usual step: a write on `Target` (a connection, the fake's state)."""
StepT = TypeVar("StepT")


class BufferedUnitOfWork(Generic[StepT]):
    """Repositories call `record`; `commit` hands every recorded step to `apply`, which
    runs them in one transaction. Reads are not buffered: they see what is committed."""

    def __init__(self, apply: Callable[[list[StepT]], Awaitable[None]]) -> None:
        self._apply = apply
        self._steps: list[StepT] = []

    def record(self, step: StepT) -> None:
        self._steps.append(step)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None,
                        error: BaseException | None, trace: TracebackType | None) -> None:
        self._steps.clear()  # not committed (or failed): nothing is written

    async def commit(self) -> None:
        steps, self._steps = self._steps, []
        if steps:
            await self._apply(steps)

    async def rollback(self) -> None:
        self._steps.clear()
