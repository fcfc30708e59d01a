"""Which files of a directory are worth ingesting, decided by their first bytes."""

from __future__ import annotations

from collections.abc import Collection

import attrs

from .routing import Route, describe_content, route_container, route_content

SNIFF_BYTES = 4096
"""How much of each file the listing reads to decide."""


@attrs.frozen
class SkippedFile:
    """A file a directory ingest leaves out, and why (`empty`, `hidden`,
    `unsupported_content (an ELF executable)`, ...)."""

    path: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"source": self.path, "status": "skipped", "reason": self.reason}


@attrs.frozen
class DirectoryListing:
    """The files under a directory that sheaf will try, and every other file with its
    reason, both sorted by path."""

    files: tuple[str, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()


def skip_reason(name: str, type_hint: str | None, head: bytes,
                members: Collection[str] | None = None) -> str | None:
    """Why a file is left out of a directory ingest, or None to ingest it.

    The content decides, as it does for a single file: a PNG named `.dat` is read by
    OCR, a binary file named `.txt` is skipped. Gzip files are tried (the reader
    inflates them); their content decides at ingest. A ZIP archive is judged by its
    `members` when the reader could list them: one that is no format sheaf reads is
    skipped, not failed.
    """
    if name.startswith("."):
        return "hidden"
    if not head:
        return "empty"
    if name.lower().endswith(".gz") and head.startswith(b"\x1f\x8b"):
        return None
    decision = route_content(type_hint, head, name, strict=True)
    if decision.route is Route.CONTAINER and members is not None:
        decision = route_container(decision, members)
        if decision.refusal is not None:
            return f"{decision.refusal.value} (a ZIP archive of no format sheaf reads)"
    if decision.refusal is None:
        return None
    return f"{decision.refusal.value} ({describe_content(head)})"
