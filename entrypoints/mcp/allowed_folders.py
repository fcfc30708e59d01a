"""The folders an MCP server may read local files from, fixed when it starts.

A model chooses the paths it asks for, so a path is judged only after every `..` and
symbolic link in it is resolved: a link inside an allowed folder that points outside it
is outside. Nothing a tool call carries can add a folder. The name judged can change
before it is read, so the file reader judges again what it opens (`confined_to`,
ADR-0029).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import attrs

from ...domain.errors import ErrorKind, SheafError


@attrs.frozen
class AllowedFolders:
    """Resolved folders; empty means no local file may be read."""

    roots: tuple[Path, ...] = ()

    @classmethod
    def of(cls, folders: Iterable[str | Path]) -> AllowedFolders:
        roots = []
        for folder in folders:
            resolved = Path(folder).expanduser().resolve()
            if not resolved.is_dir():
                raise SheafError(ErrorKind.INPUT_NOT_FOUND,
                                 f"allowed folder {folder} is not a folder")
            roots.append(resolved)
        return cls(tuple(dict.fromkeys(roots)))

    def resolve(self, path: str) -> Path:
        """The real path of `path` (relative paths are taken inside the first folder);
        `path_not_allowed` when it lies outside every folder, `input_not_found` when it
        is inside but missing."""
        if not self.roots:
            raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                             "this server reads no local files (start it with "
                             "--allow-folder to allow some)")
        try:
            given = Path(path).expanduser()
            real = (given if given.is_absolute() else self.roots[0] / given).resolve()
        except OSError:
            # A link swapped for a file mid-resolution (EINVAL from readlink), or a folder
            # that cannot be searched: nothing certain about where it points.
            raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                             f"{path} changed while it was resolved, or cannot be "
                             "resolved") from None
        except (ValueError, RuntimeError) as exc:  # NUL bytes, link loops, ~nobody
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"not a usable path: {path!r} ({exc})") from None
        if not any(real.is_relative_to(root) for root in self.roots):
            raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                             f"{path} is outside the folders this server may read: "
                             f"{', '.join(map(str, self.roots))}")
        if not real.exists():
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
        return real

    def files_under(self, folder: Path) -> list[Path]:
        """Every regular file below an allowed `folder`, in name order, each resolved and
        kept only if it is still inside the allowed folders (links may point away), once
        (links may point to one another)."""
        found: list[Path] = []
        for directory, subfolders, names in os.walk(folder):
            subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
            for name in sorted(names):
                if name.startswith("."):
                    continue
                real = (Path(directory) / name).resolve()
                inside = any(real.is_relative_to(root) for root in self.roots)
                if inside and real.is_file():
                    found.append(real)
        return list(dict.fromkeys(found))
