"""Blob collection that never deletes a blob a version about to commit relies on."""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from .held_first_blobs import HeldFirstBlobs


class BlobGuard:
    """Shared by ingests from their first blob write to their commit; held alone by a
    removal while it deletes the blobs nothing references. Blobs are shared by every
    space of a store, so without it a removal could delete bytes that an ingest into
    another space has just written and is about to commit a version over. A waiting
    removal holds back new ingests, so a stream of them cannot starve it."""

    def __init__(self) -> None:
        self._changed = anyio.Condition()
        self._writers = 0
        self._collecting = False
        self._waiting_collectors = 0

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        async with self._changed:
            while self._collecting or self._waiting_collectors:
                await self._changed.wait()
            self._writers += 1
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self._changed:
                    self._writers -= 1
                    self._changed.notify_all()

    @asynccontextmanager
    async def collecting(self) -> AsyncIterator[None]:
        async with self._changed:
            self._waiting_collectors += 1
            try:
                while self._collecting or self._writers:
                    await self._changed.wait()
            finally:
                self._waiting_collectors -= 1
                self._changed.notify_all()
            self._collecting = True
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self._changed:
                    self._collecting = False
                    self._changed.notify_all()


_GUARDS: weakref.WeakKeyDictionary[object, BlobGuard] = weakref.WeakKeyDictionary()


def blob_guard(blobs: object) -> BlobGuard:
    """The guard of one blob store: every use case writing to or collecting from the
    same store object shares it, without the composition root having to hand it out
    (the blob store beneath a store's held blobs, `HeldFirstBlobs`, is that object)."""
    if isinstance(blobs, HeldFirstBlobs):
        blobs = blobs.blobs
    guard = _GUARDS.get(blobs)
    if guard is None:
        guard = _GUARDS[blobs] = BlobGuard()
    return guard

