"""The local file port: bytes of a file named by the user, size-capped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs

from ...domain.routing.directory_listing import DirectoryListing


@attrs.frozen
class LocalFile:
    """A file's bytes (gunzipped for `.gz`), its absolute path and the type its name
    suggests (a hint the bytes must still confirm)."""

    path: str
    data: bytes
    type_hint: str | None


class FileReader(Protocol):
    async def read(self, path: str, max_bytes: int, *,
                   confined_to: Sequence[str] = ()) -> LocalFile:
        """Raise `input_not_found`, `too_large` or `corrupt` (bad gzip). With
        `confined_to` (absolute folders), the file opened must lie inside one of them
        with no symbolic link on the way and be a regular file, checked on what is
        opened (not on the name, which can change in between): else `path_not_allowed`."""
        ...

    async def is_directory(self, path: str) -> bool:
        ...

    async def list_directory(self, path: str, recursive: bool) -> DirectoryListing:
        """Every file under a directory: those sheaf can ingest, judged by their first
        bytes (`skip_reason`), and the others with the reason each is skipped."""
        ...
