"""An in-memory file reader: named files given by the test."""

from __future__ import annotations

from pathlib import PurePosixPath

from sheaf.adapters.filesystem_file_reader import TYPE_HINTS, is_ingestible
from sheaf.application.ports.file_reader import LocalFile
from sheaf.domain.errors import ErrorKind, SheafError


class MemoryFileReader:
    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files = dict(files or {})

    async def read(self, path: str, max_bytes: int) -> LocalFile:
        if path not in self.files:
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
        data = self.files[path]
        if len(data) > max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE, f"{path} is over the {max_bytes} byte limit")
        return LocalFile(path, data, TYPE_HINTS.get(PurePosixPath(path).suffix.lower()))

    async def is_directory(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in self.files)

    async def list_directory(self, path: str, recursive: bool) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted(p for p in self.files if p.startswith(prefix) and (
            recursive or "/" not in p[len(prefix):]) and is_ingestible(PurePosixPath(p).name))
