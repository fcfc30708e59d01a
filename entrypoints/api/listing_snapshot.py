"""A DuckDB store's document listing kept beside it, so that `sheaf list` answers without
loading DuckDB (ADR-0024).

The process that has the store writes `<store>.listing` as it closes the file: every
space's documents as `sheaf list --json` prints them, under a digest of the file as it
left it (`duckdb_file_state`). `sheaf list` prints from it only while the file still has
that digest, which any commit, checkpoint or compaction since changes; otherwise it opens
the store as before. Written only by the lock holder, after the file is closed and before
the lock is released, and swapped in whole, so a reader sees either the old listing with
the old digest or the new one with the new.

The first line is the header (format, sheaf's version, the file's digest, how many lines
follow); each further line is one space and its documents.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...adapters.installation.package_version import sheaf_version
from ...adapters.store.duckdb.file_state import duckdb_file_state

if TYPE_CHECKING:
    from ...application.store.document_catalogue import DocumentCatalogue

SUFFIX = ".listing"
FORMAT = 1
LARGEST = 1_000
"""Stores with more documents keep no listing: gathering it would add to every close of a
changed store what a listing that long saves at start-up."""

Listing = list[dict[str, Any]]


@runtime_checkable
class ClosingFile(Protocol):
    """A store that is a file, and runs callbacks once it has closed it (the DuckDB
    store's `when_closed`)."""

    path: str

    def when_closed(self, callback: Callable[[], None]) -> None: ...


def stored_listing(store: str | os.PathLike[str], space: str) -> Listing | None:
    """`space`'s documents as the store had them when last closed, if the file has not
    changed since; None when that is not known (no listing, another version of sheaf,
    the file changed or gone, or the listing unreadable or cut short)."""
    real = os.path.realpath(store)  # a symlinked store logs beside the file it names
    try:
        with open(f"{real}{SUFFIX}", encoding="utf-8") as file:
            # "\n" only: a title may hold U+2028, which splitlines() would split at
            header, *lines = file.read().removesuffix("\n").split("\n")
        described = json.loads(header)
        if described.pop("spaces") != len(lines) or described["state"] is None \
                or described != _header(real):
            return None
        for line in lines:
            entry = json.loads(line)
            if entry["space"] == space:
                documents: Listing = entry["documents"]
                return documents
    except Exception:  # whatever is wrong with it (even RecursionError): not believed
        return None
    return []  # every space with a document has its line


async def keep_listing(store: object, catalogue: DocumentCatalogue) -> None:
    """Have `store` write its listing as it closes, unless the listing beside it is still
    current; a store that is not a file (not a `ClosingFile`) keeps none. Failing to
    gather it only costs the next `list` its speed, so nothing is raised."""
    if not isinstance(store, ClosingFile) or store.path == ":memory:":
        return
    real = os.path.realpath(store.path)
    if stored_listing(real, "") is not None:
        return  # still current: the file is as it was when the listing was written
    before = duckdb_file_state(real)
    try:
        spaces = await _listings(catalogue)
    except Exception:  # a store that cannot list says so to `list`, not to this close
        import logging  # not for `list`, which only reads the listing

        logging.getLogger("sheaf.store").debug("no listing kept for %s", real, exc_info=True)
        spaces = None
    if before is None or duckdb_file_state(real) != before:  # written to, or gone
        spaces = None
    inode = os.stat(real).st_ino if spaces is not None else None
    store.when_closed(lambda: _write(real, inode, spaces))


async def _listings(catalogue: DocumentCatalogue) -> dict[str, Listing] | None:
    from .serialisation import as_received, document_summary

    status = await catalogue.status()
    if sum(count.documents for count in status.spaces) > LARGEST:
        return None
    return {count.space: as_received([document_summary(d)
                                      for d in await catalogue.list(count.space)])
            for count in status.spaces if count.documents}


def _write(path: str, inode: int | None, spaces: dict[str, Listing] | None) -> None:
    """The listing of the file at `path`, if it is still the file (`inode`) whose
    documents `spaces` are; else none, so that no stale listing stays."""
    target = f"{path}{SUFFIX}"
    header = _header(path)
    try:
        opened = os.stat(path)
    except FileNotFoundError:
        opened = None
    if spaces is None or opened is None or opened.st_ino != inode or header["state"] is None:
        _remove(target)
        return
    # One name for the staged file: only the store's lock holder writes it, and one that
    # a killed writer left is written over next time. Readable as the store file is.
    staged = f"{target}.tmp"
    try:
        descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                             opened.st_mode & 0o666)
        os.fchmod(descriptor, opened.st_mode & 0o666)
        with open(descriptor, "w", encoding="utf-8") as file:
            file.write(json.dumps({**header, "spaces": len(spaces)}) + "\n")
            for space in sorted(spaces):
                file.write(json.dumps({"space": space, "documents": spaces[space]},
                                      ensure_ascii=False, separators=(",", ":")) + "\n")
        os.replace(staged, target)
    except OSError:
        _remove(staged)
        _remove(target)
        raise


def _remove(name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)


def _header(path: str) -> dict[str, Any]:
    return {"format": FORMAT, "sheaf": sheaf_version(), "records": _records_code(),
            "state": duckdb_file_state(path)}


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What makes the listing's records: a change to any of them (a checkout's code changes
# under one version) is another listing. An install without sources has the version only.
_RECORDS = ("entrypoints/api/serialisation.py", "domain/store/knowledge_records.py",
            "adapters/store/store_rows.py", "adapters/store/duckdb/catalogue.py",
            "adapters/store/duckdb/rows.py")


def _records_code() -> list[int | None]:
    times: list[int | None] = []
    for name in _RECORDS:
        try:
            times.append(os.stat(os.path.join(_PACKAGE, name)).st_mtime_ns)
        except OSError:
            times.append(None)
    return times
