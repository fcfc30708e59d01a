"""The local file port: bytes of a file named by the user, size-capped."""

from __future__ import annotations

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
    async def read(self, path: str, max_bytes: int) -> LocalFile:
        """Raise `input_not_found`, `too_large` or `corrupt` (bad gzip)."""
        ...

    async def is_directory(self, path: str) -> bool:
        ...

    async def list_directory(self, path: str, recursive: bool) -> DirectoryListing:
        """Every file under a directory: those sheaf can ingest, judged by their first
        bytes (`skip_reason`), and the others with the reason each is skipped."""
        ...
