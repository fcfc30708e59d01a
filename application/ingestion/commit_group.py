"""Commits of concurrent ingests gathered into one unit of work (ADR-0041).

A small document's write is a dozen statements whatever its size; written one document
at a time they capped ingest at 12-13 documents a second. Documents that are ready to be
stored wait here and go to the store together, so the statements are shared by the
group; each document still gets its own outcome, and a group that fails is written
again one document at a time, so one bad document fails alone and a document is stored
whole or not at all.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Callable

import anyio
import attrs

from ..ports.unit_of_work import UnitOfWork
from ..store.storage import Storage

MAX_MEMBERS = 64
"""Documents written in one transaction at most."""
MAX_BYTES = 16 * 1024 * 1024
"""... and at most about this much of their text: a group's rows are held in memory."""
LINGER = 0.5
"""Seconds the first member of a group waits for others while ingests are at work."""

IN_FLIGHT = 2 * MAX_MEMBERS
"""Sources of a batch in flight beyond those at work: enough to fill one group while
the one before it is written."""

Write = Callable[[UnitOfWork], None]
"""What a member records in the group's unit of work."""


@attrs.define(eq=False)
class _Member:
    write: Write
    size: int
    joined: float
    done: bool = False
    error: BaseException | None = None


class CommitGroup:
    """Gathers the writes of ingests that are ready to commit. A group is written when it
    is full (`max_members`, `max_bytes`), when no ingest is at work any more (nothing
    else will join soon), or when its first member has waited `linger` seconds. One
    group is written at a time; members that join meanwhile form the next one."""

    def __init__(self, storage: Storage, *, max_members: int = MAX_MEMBERS,
                 max_bytes: int = MAX_BYTES, linger: float = LINGER) -> None:
        self._storage = storage
        self.max_members = max_members
        self.max_bytes = max_bytes
        self.linger = linger
        self._pending: list[_Member] = []
        self._bytes = 0
        self._working = 0
        self._writing = False
        self._changed = anyio.Event()

    @contextlib.asynccontextmanager
    async def working(self, limiter: anyio.CapacityLimiter | None = None
                      ) -> AsyncIterator[None]:
        """Around an ingest's work before its commit (holding `limiter` if given): while
        any ingest is at work, a group may wait for it to join."""
        async with limiter if limiter is not None else contextlib.nullcontext():
            self._working += 1
            try:
                yield
            finally:
                self._working -= 1
                self._notify()

    async def commit(self, write: Write, size: int = 0) -> None:
        """Record `write` in a unit of work shared with other ingests and commit it;
        returns once it is committed, raises what its own commit raised."""
        member = _Member(write, size, anyio.current_time())
        self._pending.append(member)
        self._bytes += size
        self._notify()
        try:
            while not member.done:
                if not self._writing and self._ready():
                    await self._write_group()
                    continue
                wait = (self._pending[0].joined + self.linger - anyio.current_time()
                        if self._pending and not self._writing else math.inf)
                changed = self._changed
                with anyio.move_on_after(max(wait, 0.0)):
                    await changed.wait()
        except BaseException:
            # Cancelled: not written if no group has taken it yet; otherwise its group
            # is being written, and the caller's locks are held until it is.
            if member in self._pending:
                self._pending.remove(member)
                self._bytes -= size
            else:
                with anyio.CancelScope(shield=True):
                    while not member.done:
                        changed = self._changed
                        await changed.wait()
            raise
        if member.error is not None:
            raise member.error

    def _ready(self) -> bool:
        if not self._pending:
            return False
        return (len(self._pending) >= self.max_members or self._bytes >= self.max_bytes
                or self._working == 0
                or anyio.current_time() >= self._pending[0].joined + self.linger)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def _write_group(self) -> None:
        members, self._pending, self._bytes = self._pending, [], 0
        self._writing = True
        try:
            # Shielded: the writer that began a group finishes it for every member, even
            # when its own ingest is cancelled meanwhile.
            with anyio.CancelScope(shield=True):
                try:
                    await self._commit(members)
                except Exception as exc:
                    if len(members) == 1:
                        members[0].error = exc
                    else:  # one member's fault: each is written on its own
                        for member in members:
                            await self._commit_alone(member)
        finally:
            for member in members:
                member.done = True
            self._writing = False
            self._notify()

    async def _commit_alone(self, member: _Member) -> None:
        try:
            await self._commit([member])
        except Exception as exc:
            member.error = exc

    async def _commit(self, members: list[_Member]) -> None:
        async with self._storage.unit_of_work() as work:
            for member in members:
                member.write(work)
            await work.commit()
