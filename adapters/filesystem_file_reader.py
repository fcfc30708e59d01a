"""Reading local files for extraction and ingestion."""

from __future__ import annotations

import zlib
from pathlib import Path

import anyio

from sheaf.application.ports.file_reader import LocalFile
from sheaf.domain.errors import ErrorKind, SheafError

TYPE_HINTS = {".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
              ".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown",
              ".markdown": "text/markdown", ".json": "application/json"}


class FilesystemFileReader:
    """Files by path; `.gz` files are inflated under the same size cap."""

    async def read(self, path: str, max_bytes: int) -> LocalFile:
        return await anyio.to_thread.run_sync(self._read, path, max_bytes)

    def _read(self, path: str, max_bytes: int) -> LocalFile:
        file = Path(path).expanduser()
        if not file.is_file():
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
        if file.stat().st_size > max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE, f"{path} is over the {max_bytes} byte limit")
        data = file.read_bytes()
        name = file.name.lower()
        if name.endswith(".gz"):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                data = inflater.decompress(data, max_bytes + 1)
            except zlib.error as exc:
                raise SheafError(ErrorKind.CORRUPT, f"{path}: not valid gzip: {exc}") from None
            if len(data) > max_bytes:
                raise SheafError(ErrorKind.TOO_LARGE, f"{path} inflates past {max_bytes} bytes")
            name = name[:-3]
        return LocalFile(str(file.resolve()), data, TYPE_HINTS.get(Path(name).suffix))

    async def is_directory(self, path: str) -> bool:
        return Path(path).expanduser().is_dir()

    async def list_directory(self, path: str, recursive: bool) -> list[str]:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such directory: {path}")
        pattern = "**/*" if recursive else "*"
        found = [p for p in folder.glob(pattern) if p.is_file() and is_ingestible(p.name)]
        return sorted(str(p.resolve()) for p in found)


def is_ingestible(name: str) -> bool:
    """A file sheaf can ingest, by its name (`.gz` looked through)."""
    lowered = name.lower()
    lowered = lowered[:-3] if lowered.endswith(".gz") else lowered
    return not name.startswith(".") and Path(lowered).suffix in TYPE_HINTS
