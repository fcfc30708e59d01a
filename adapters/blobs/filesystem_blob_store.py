"""Content-addressed blobs in a folder: `raw/ab/abcdef...`, written atomically."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio

from ...domain.errors import ErrorKind, SheafError
from ..files.atomic_file import write_atomically


class FilesystemBlobStore:
    """Blobs as files named by their sha256, beside the DuckDB file by default."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"not a sha256: {sha256!r}")
        return self.root / "raw" / sha256[:2] / sha256

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        # Hashed in the thread too: a large body takes the event loop's time otherwise.
        return await anyio.to_thread.run_sync(self._write, sha256, data)

    def _write(self, sha256: str | None, data: bytes) -> str:
        sha = sha256 or hashlib.sha256(data).hexdigest()
        target = self._path(sha)
        if not target.exists():
            write_atomically(target, data)
        return sha

    async def get(self, sha256: str) -> bytes:
        path = self._path(sha256)
        try:
            return await anyio.to_thread.run_sync(path.read_bytes)
        except FileNotFoundError:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no blob {sha256}") from None

    async def has(self, sha256: str) -> bool:
        return self._path(sha256).exists()

    async def delete(self, sha256: str) -> None:
        self._path(sha256).unlink(missing_ok=True)

    async def stored_digests(self) -> list[str]:
        """Every blob's sha256: the names under `raw/` (temporary files of a write in
        progress are not blobs yet)."""
        def names() -> list[str]:
            folder = self.root / "raw"
            if not folder.is_dir():
                return []
            return sorted(path.name for path in folder.glob("??/*")
                          if len(path.name) == 64 and path.parent.name == path.name[:2])

        return await anyio.to_thread.run_sync(names)
