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
from typing import TYPE_CHECKING, Any

from sheaf.adapters.duckdb_file_state import duckdb_file_state
from sheaf.adapters.package_version import sheaf_version

if TYPE_CHECKING:
    from sheaf.application.document_catalogue import DocumentCatalogue

SUFFIX = ".listing"
FORMAT = 1
LARGEST = 1_000
"""Stores with more documents keep no listing: gathering it would add to every close of a
changed store what a listing that long saves at start-up."""

Listing = list[dict[str, Any]]


def stored_listing(store: str | os.PathLike[str], space: str) -> Listing | None:
    """`space`'s documents as the store had them when last closed, if the file has not
    changed since; None when that is not known (no listing, another version of sheaf,
    the file changed, or the listing unreadable or cut short)."""
    try:
        with open(f"{store}{SUFFIX}", encoding="utf-8") as file:
            header, *lines = file.read().splitlines()
        described = json.loads(header)
        if described.pop("spaces") != len(lines) or described != _header(str(store)):
            return None
        for line in lines:
            entry = json.loads(line)
            if entry["space"] == space:
                documents: Listing = entry["documents"]
                return documents
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return []  # every space with a document has its line


async def keep_listing(store: object, catalogue: DocumentCatalogue) -> None:
    """Have `store` write its listing as it closes, unless the listing beside it is still
    current; a store that is not a DuckDB file (`when_closed`, `path`) keeps none.
    Failing to gather it only costs the next `list` its speed, so nothing is raised."""
    path = getattr(store, "path", ":memory:")
    when_closed: Callable[[Callable[[], None]], None] | None = getattr(
        store, "when_closed", None)
    if path == ":memory:" or when_closed is None:
        return
    target = f"{path}{SUFFIX}"
    if stored_listing(path, "") is not None:
        return  # still current: the file is as it was when the listing was written
    before = duckdb_file_state(path)
    try:
        spaces = await _listings(catalogue)
    except Exception:  # a store that cannot list says so to `list`, not to this close
        import logging  # not for `list`, which only reads the listing

        logging.getLogger("sheaf.store").debug("no listing kept for %s", path, exc_info=True)
        spaces = None
    if duckdb_file_state(path) != before:  # a commit while it was read: no listing
        spaces = None
    when_closed(lambda: _write(target, path, spaces))


async def _listings(catalogue: DocumentCatalogue) -> dict[str, Listing] | None:
    from sheaf.entrypoints.serialisation import as_received, document_summary

    status = await catalogue.status()
    if sum(count.documents for count in status.spaces) > LARGEST:
        return None
    return {count.space: as_received([document_summary(d)
                                      for d in await catalogue.list(count.space)])
            for count in status.spaces if count.documents}


def _write(target: str, path: str, spaces: dict[str, Listing] | None) -> None:
    if spaces is None:  # too large, or unreadable: a stale listing must not stay
        _remove(target)
        return
    staged = f"{target}.{os.getpid()}.tmp"
    try:
        with open(staged, "w", encoding="utf-8") as file:
            file.write(json.dumps({**_header(path), "spaces": len(spaces)}) + "\n")
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
    return {"format": FORMAT, "sheaf": sheaf_version(),
            "records": os.stat(_RECORDS).st_mtime_ns, "state": duckdb_file_state(path)}


_RECORDS = os.path.join(os.path.dirname(__file__), "serialisation.py")
"""The module that makes the listing's records: changed code (a checkout's, whose version
stays the same) is another listing."""
