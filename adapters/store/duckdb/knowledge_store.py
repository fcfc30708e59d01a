"""The knowledge store on an embedded DuckDB file: sheaf's default, no server needed.

`DuckDbKnowledgeStore` opens the file (its lock, its migrations, its index repair after
a crash), hands out the implementations of the store's ports, each in a module of its
own and all running their SQL through one `DuckDbConnection`, and closes the file."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from ....application.store.storage import Storage
from ...files.owner_only import owner_only_folders
from .answer_cache import DuckDbAnswerCache
from .catalogue import DuckDbCatalogue
from .connection import DuckDbConnection
from .fingerprint_filter import FingerprintFilter
from .held_blobs import HELD_BLOB_BYTES, DuckDbHeldBlobs
from .hnsw_index import HnswIndex
from .log_replay import damaged_log_error, replay_in_child
from .maintenance import DuckDbMaintenance, repair_indexes
from .schema import check_schema, migrate
from .search_index import DuckDbSearchIndex
from .space_policies import DuckDbSpacePolicies
from .store_lock import StoreLock
from .unit_of_work import DuckDbUnitOfWork
from .vector_search import VectorSearch

CLEAN_CLOSE_SUFFIX = ".closed"
"""Beside the file after a clean close: the next open skips the index check."""
logger = logging.getLogger("sheaf.store")


class DuckDbKnowledgeStore:
    """One DuckDB file holds every space. DuckDB allows one writer per file: this object
    owns the connection (`connection`), which runs every statement in a worker thread,
    writes one at a time; its ports are `catalogue`, `search_index`, `policies`,
    `answers` and the units of work of `storage()`, with `hnsw_index` and `maintenance`
    beside them."""

    def __init__(self, path: Path | str) -> None:
        # Absolute: the lock, the clean-close marker and the listing written at close must
        # name this file even if the process changed directory since it was opened.
        self.path = str(path) if str(path) == ":memory:" else os.path.abspath(path)
        unclean = sample = False
        store_lock = None
        if self.path != ":memory:":
            owner_only_folders(Path(self.path).parent)
            store_lock = StoreLock(self.path)
            # A write-ahead log left beside the file means the last writer did not close.
            unclean = Path(self.path + ".wal").exists()
            # A clean close leaves a marker; opening takes it away, so a writer that dies
            # leaves none and the next open samples the indexes (so does a store written
            # before the marker existed).
            marker = Path(self.path + CLEAN_CLOSE_SUFFIX)
            sample = unclean or not marker.exists()
            marker.unlink(missing_ok=True)
        self._when_closed: list[Callable[[], None]] = []
        try:
            read_only = False
            if unclean:
                # The log a dead writer left is replayed in a child first: a damaged log
                # can make DuckDB abort the process (ADR-0029).
                replay = replay_in_child(self.path)
                if replay.ok:  # checkpointed and the indexes rebuilt by the child
                    unclean = sample = False
                elif replay.cannot_write:
                    # A full (or read-only) disk: the log is replayed in memory instead,
                    # and the store answers reads until writes are possible again.
                    logger.warning("opening %s read-only: %s", self.path, replay.message)
                    read_only = True
                else:
                    raise damaged_log_error(self.path, replay)
            self.connection = DuckDbConnection(self.path, store_lock, read_only=read_only)
            if read_only:
                check_schema(self.connection)
            else:
                migrate(self.connection)
                repair_indexes(self.connection, unclean, sample)
        except BaseException:
            if store_lock is not None:
                store_lock.release()
            raise
        # What this process keeps about the file besides the connection; none of these
        # refers back to the store, so dropping the store drops its locks at once.
        self.fingerprints = FingerprintFilter()
        self.maintenance = DuckDbMaintenance(self.connection)
        self.hnsw_index = HnswIndex(self.connection, self.maintenance)
        self.vector_search = VectorSearch(self.connection, self.hnsw_index)
        self.maintenance.after_rewrite(self.vector_search.after_rewrite)
        self.maintenance.after_rewrite(self.fingerprints.forget)
        self.catalogue = DuckDbCatalogue(self.connection)
        self.search_index = DuckDbSearchIndex(self.connection, self.vector_search,
                                              self.fingerprints)
        self.policies = DuckDbSpacePolicies(self.connection)
        self.answers = DuckDbAnswerCache(self.connection)
        self.held_blobs = DuckDbHeldBlobs(self.connection)

    def storage(self) -> Storage:
        """This store's ports, as the use cases take them."""
        return Storage(self.unit_of_work, self.catalogue, self.search_index, self.policies,
                       self.answers, self.aclose, self.maintenance.compact,
                       held_blobs=self.held_blobs, held_blob_bytes=HELD_BLOB_BYTES)

    def unit_of_work(self) -> DuckDbUnitOfWork:
        """A new unit of work on this store."""
        return DuckDbUnitOfWork(self.connection, self.fingerprints, self.vector_search,
                                self.maintenance)

    async def aclose(self) -> None:
        await self.connection.aclose()
        if self.path != ":memory:" and not self.connection.read_only:
            Path(self.path + CLEAN_CLOSE_SUFFIX).touch()
            for callback in self._when_closed:
                try:
                    callback()
                except Exception:  # a cache beside the file (ADR-0024): never worth a lock
                    logger.debug("after closing %s", self.path, exc_info=True)
        self.connection.release_lock()

    def when_closed(self, callback: Callable[[], None]) -> None:
        """Run `callback` when `aclose` has closed the file, before its lock is released:
        what it writes beside the file then describes the file as this process left it,
        and no other sheaf process can change the file in between."""
        self._when_closed.append(callback)
