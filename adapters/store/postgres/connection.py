"""One PostgreSQL store's pool as its port implementations share it: work on a pooled
connection with psycopg's failures turned into sheaf's, and the notice a commit gives
that it wrote, on which what the ports keep of earlier reads is dropped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from ....domain.errors import SheafError
from .connection_errors import operation_error
from .location import shown_location
from .rows import Connection

T = TypeVar("T")
KEPT_SECONDS = 5.0
"""How long what a port keeps of a read is reused before it is read again: a space's
snippet count and mean length (BM25's N and avgdl), whether a table has its HNSW index.
This process's own writes drop them at once (`PostgresConnection.written`). Other
processes' writes shift the text statistics by a fraction of a percent in that time."""


class PostgresConnection:
    """The pool of one store (autocommit connections), with the URL it was opened on
    and `location`, that URL without its password, for messages."""

    def __init__(self, url: str, pool: AsyncConnectionPool[Any]) -> None:
        self.url = url
        self.location = shown_location(url)
        self.pool = pool
        self._forgets: list[Callable[[], None]] = []

    async def on_connection(self, work: Callable[[Connection], Awaitable[T]],
                            doing: str = "reading") -> T:
        """`work` on a pooled connection; a driver failure or a pool timeout becomes a
        storage error naming the store and what it was `doing`."""
        try:
            async with self.pool.connection() as c:
                return await work(c)
        except SheafError:
            raise
        except (psycopg.Error, PoolTimeout) as exc:
            raise operation_error(psycopg.OperationalError(str(exc))
                                  if isinstance(exc, PoolTimeout) else exc,
                                  self.location, doing) from None

    async def rows(self, sql: str, params: Sequence[object] | dict[str, object] = ()
                   ) -> list[tuple[Any, ...]]:
        """Every row `sql` returns (a write must end with RETURNING to be run here)."""
        async def read(c: Connection) -> list[tuple[Any, ...]]:
            return await (await c.execute(sql, params)).fetchall()

        return await self.on_connection(read)

    def when_written(self, forget: Callable[[], None]) -> None:
        """Call `forget` after every commit through this pool, whether it succeeded."""
        self._forgets.append(forget)

    def written(self) -> None:
        """A commit has ended: what the ports kept of earlier reads may be stale."""
        for forget in self._forgets:
            forget()

    async def close(self) -> None:
        await self.pool.close()
