"""Preparing versions in child processes, so a server's event loop keeps the GIL while an
upload is extracted, analysed and encoded (ADR-0037).

The children are forked from a forkserver that has already imported the extractors: one
starts in milliseconds and shares their pages. A child that dies (killed, out of memory)
fails the ingests it held with `internal` and is replaced for the next one."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import anyio
import attrs

from ...application.concurrency.worker_pool import WorkerPool
from ...application.extraction.document_extraction import DocumentExtraction
from ...application.ingestion.version_preparation import (
    Preparation,
    PreparationRequest,
    PreparedVersion,
    prepare_version,
)
from ...domain.analysis.token_counting import TokenCounting
from ...domain.errors import ErrorKind, SheafError

_extraction: DocumentExtraction | None = None
"""A child's extractors, built at its first request."""


PIECE = 64
"""Chunks and block rows sent back per pickle: unpickling all of a large document's at
once held the parent's GIL for 0.4 s (4,500 chunks); one piece holds it for about a
millisecond, and the event loop takes its turn between pieces."""


@attrs.frozen
class _Sent:
    """A prepared version as a child sends it: without its chunks and block rows, which
    follow in pieces the parent unpickles one at a time."""

    prepared: PreparedVersion
    chunks: tuple[bytes, ...]
    blocks: tuple[bytes, ...]

    @classmethod
    def of(cls, prepared: PreparedVersion) -> _Sent:
        staged = prepared.staged
        if staged is None:
            return cls(prepared, (), ())
        return cls(attrs.evolve(prepared, staged=attrs.evolve(staged, chunks=(), blocks=())),
                   _pieces(staged.chunks), _pieces(staged.blocks))

    def received(self) -> PreparedVersion:
        staged = self.prepared.staged
        if staged is None:
            return self.prepared
        return attrs.evolve(self.prepared, staged=attrs.evolve(
            staged, chunks=_unpickled(self.chunks), blocks=_unpickled(self.blocks)))


def _pieces(values: tuple[object, ...]) -> tuple[bytes, ...]:
    return tuple(pickle.dumps(values[start:start + PIECE], pickle.HIGHEST_PROTOCOL)
                 for start in range(0, len(values), PIECE))


def _unpickled(pieces: tuple[bytes, ...]) -> tuple[Any, ...]:
    return tuple(value for piece in pieces for value in pickle.loads(piece))


def _prepare_here(build: Callable[[], DocumentExtraction], request: PreparationRequest
                  ) -> _Sent:
    """What a child runs: the same steps as in-process, on a loop of its own."""
    global _extraction
    if _extraction is None:
        _extraction = build()
    return _Sent.of(anyio.run(prepare_version, request, _extraction, WorkerPool(1)))


class ProcessPreparation:
    """Runs `prepare_version` in at most `processes` children, started at first use,
    each extracting with what `build` makes (a module-level function: children import
    it by name), forked from a server that imported `preload`."""

    def __init__(self, processes: int, build: Callable[[], DocumentExtraction],
                 preload: Sequence[str] = ()) -> None:
        self.processes = max(1, processes)
        self._build = build
        self._preload = [__name__, *preload]
        self._executor: ProcessPoolExecutor | None = None
        self._starting = anyio.Lock()
        self._sendable: dict[int, bool] = {}

    def preparing(self, in_process: Preparation) -> Preparation:
        """A preparation in the children; requests whose token counting cannot be sent
        to one (a local tokenizer's) are prepared by `in_process`."""
        async def prepare(request: PreparationRequest) -> PreparedVersion:
            if not self._can_send(request.counting):
                return await in_process(request)
            return await self.prepare(request)

        return prepare

    async def prepare(self, request: PreparationRequest) -> PreparedVersion:
        """`prepare_version(request)` in a child; `internal` when the child dies."""
        async with self._starting:  # concurrent first ingests start one set of children
            executor = self._executor
            if executor is None:
                executor = self._executor = await anyio.to_thread.run_sync(self._started)
        # Submitted from a thread: a submit may fork a child, which takes the GIL a while.
        future: Future[_Sent] = await anyio.to_thread.run_sync(
            executor.submit, _prepare_here, self._build, request)
        try:
            sent = await asyncio.wrap_future(future)
        except BrokenProcessPool:
            if self._executor is executor:  # the first ingest to see it replaces it
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise SheafError(ErrorKind.INTERNAL, "the process extracting this file ended "
                             "before it answered (killed, or out of memory); nothing was "
                             "stored: try again") from None
        return await anyio.to_thread.run_sync(sent.received)

    def _started(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        # The forkserver imports the extractors once; each child is forked from it.
        context.set_forkserver_preload(self._preload)
        return ProcessPoolExecutor(self.processes, mp_context=context)

    def _can_send(self, counting: TokenCounting) -> bool:
        key = id(counting.count)
        if key not in self._sendable:
            try:
                pickle.dumps(counting)
                self._sendable[key] = True
            except (pickle.PicklingError, TypeError, AttributeError):
                self._sendable[key] = False
        return self._sendable[key]

    async def aclose(self) -> None:
        """Stop the children (each finishes what it was preparing)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            await anyio.to_thread.run_sync(executor.shutdown)
