"""An in-memory file reader: named files given by the test."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from ...application.ports.file_reader import LocalFile
from ...domain.errors import ErrorKind, SheafError
from ...domain.routing.directory_listing import (
    SNIFF_BYTES,
    DirectoryListing,
    SkippedFile,
    skip_reason,
)
from .filesystem_file_reader import type_hint_for


class MemoryFileReader:
    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files = dict(files or {})

    async def read(self, path: str, max_bytes: int, *,
                   confined_to: Sequence[str] = ()) -> LocalFile:
        if confined_to and not any(path.startswith(root.rstrip("/") + "/")
                                   for root in confined_to):
            raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                             f"{path} is outside the folders this server may read")
        if path not in self.files:
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
        data = self.files[path]
        if len(data) > max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE, f"{path} is over the {max_bytes} byte limit")
        return LocalFile(path, data, type_hint_for(PurePosixPath(path).name))

    async def is_directory(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in self.files)

    async def list_directory(self, path: str, recursive: bool) -> DirectoryListing:
        prefix = path.rstrip("/") + "/"
        if not await self.is_directory(path):
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such directory: {path}")
        files: list[str] = []
        skipped: list[SkippedFile] = []
        folders: set[str] = set()
        for name in sorted(self.files):
            if not name.startswith(prefix):
                continue
            parts = name[len(prefix):].split("/")
            if any(p.startswith(".") for p in parts[:-1]):
                continue
            if len(parts) > 1 and not recursive:
                folders.add(prefix + parts[0])
                continue
            reason = skip_reason(parts[-1], type_hint_for(parts[-1]),
                                 self.files[name][:SNIFF_BYTES])
            if reason is None:
                files.append(name)
            else:
                skipped.append(SkippedFile(name, reason))
        skipped += [SkippedFile(folder, "a folder: walked only with --recursive")
                    for folder in sorted(folders)]
        return DirectoryListing(tuple(files), tuple(sorted(skipped, key=lambda s: s.path)))
