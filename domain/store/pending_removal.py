"""A removal written down before it starts, so a process killed half-way through one can
be finished by the next process to open the store."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..errors import ErrorKind, SheafError


@attrs.frozen
class PendingRemoval:
    """One document's removal: the database forgets the document in one transaction, then
    the blobs it held that nothing else uses and its sources' staged artifacts go."""

    space: str
    document_id: str
    blobs: tuple[str, ...]
    """The sha256 of every blob its versions held (each deleted only if unreferenced)."""
    artifact_prefixes: tuple[str, ...]
    """The artifact keys under which its sources' staged versions lie."""


def journal_bytes(removals: tuple[PendingRemoval, ...]) -> bytes:
    """The journal of `removals` as the bytes the artifact store keeps."""
    return json.dumps({"removals": [{
        "space": r.space, "document_id": r.document_id, "blobs": list(r.blobs),
        "artifact_prefixes": list(r.artifact_prefixes)} for r in removals]},
        sort_keys=True).encode()


def read_journal(data: bytes) -> tuple[PendingRemoval, ...]:
    """The removals a journal holds; `corrupt` (naming the fix) when it is unreadable."""
    try:
        entries: Any = json.loads(data)["removals"]
        return tuple(PendingRemoval(str(e["space"]), str(e["document_id"]),
                                    tuple(str(s) for s in e["blobs"]),
                                    tuple(str(p) for p in e["artifact_prefixes"]))
                     for e in entries)
    except (ValueError, KeyError, TypeError) as exc:
        raise SheafError(ErrorKind.CORRUPT,
                         f"the store's removal journal is unreadable ({exc}); delete "
                         "versions/journal/removals.json beside the store and run "
                         "`sheaf compact` to collect what the removal left") from None
