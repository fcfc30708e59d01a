"""Staged artifacts as files: `<root>/versions/<key>/<name>`, written atomically."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio

from ..files.atomic_file import write_atomically

_SAFE = re.compile(r"^[A-Za-z0-9._/-]+$")


class FilesystemArtifactStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root) / "versions"

    def _path(self, key: str, name: str) -> Path:
        if not _SAFE.match(key) or ".." in key or not _SAFE.match(name) or "/" in name:
            raise ValueError(f"unsafe artifact name {key!r}/{name!r}")
        return self.root / key / name

    async def write(self, key: str, name: str, data: bytes) -> None:
        await anyio.to_thread.run_sync(write_atomically, self._path(key, name), data)

    async def delete_under(self, prefix: str) -> None:
        folder = self._path(prefix.rstrip("/"), "x").parent
        await anyio.to_thread.run_sync(self._delete_folder, folder)

    def _delete_folder(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        # Empty parents (the space's and the source's folders) go too, up to the root.
        for parent in folder.parents:
            if parent == self.root or self.root not in parent.parents:
                break
            try:
                parent.rmdir()
            except OSError:  # not empty
                break

    async def read(self, key: str, name: str) -> bytes | None:
        path = self._path(key, name)
        try:
            return await anyio.to_thread.run_sync(path.read_bytes)
        except FileNotFoundError:
            return None
