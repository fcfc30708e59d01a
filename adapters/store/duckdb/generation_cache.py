"""Rows read from the store, kept for as long as nothing was written: a warm search
asks DuckDB again only for the snippets and documents it has not seen since the last
write (each such read costs a few milliseconds of CPU, more than ranking from the held
postings, and much more in wall time on a loaded machine)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from .connection import DuckDbConnection

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class GenerationCache(Generic[K, V]):
    """Values by key, good for one generation of the connection (`DuckDbConnection
    .generation`), at most `size` of them (then it starts again)."""

    def __init__(self, connection: DuckDbConnection, size: int) -> None:
        self._connection = connection
        self._size = size
        self._generation = -1
        self._values: dict[K, V] = {}
        self._lock = threading.Lock()

    def kept(self, keys: Sequence[K]) -> dict[K, V] | None:
        """Every key's value when all are kept for the current generation, else None
        (no read: cheap enough to ask before handing the work to a thread)."""
        with self._lock:
            if self._generation != self._connection.generation:
                return None
            if not all(k in self._values for k in keys):
                return None
            return {k: self._values[k] for k in keys}

    def get_many(self, keys: Sequence[K], read: Callable[[list[K]], dict[K, V]]
                 ) -> dict[K, V]:
        """The value of every key, those not kept from `read(missing keys)`, which
        gives a value for each key it is asked."""
        generation = self._connection.generation
        with self._lock:
            if self._generation != generation:
                self._values.clear()
                self._generation = generation
            found = {k: self._values[k] for k in keys if k in self._values}
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if not missing:
            return found
        fresh = read(missing)
        with self._lock:
            # Read after the generation was taken: kept only while it still stands, so a
            # write committing meanwhile leaves nothing older than itself behind.
            if self._generation == generation == self._connection.generation:
                if len(self._values) + len(fresh) > self._size:
                    self._values.clear()
                self._values.update(fresh)
        return {**found, **fresh}
