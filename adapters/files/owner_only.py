"""Files and folders for their owner alone, whatever the process's umask.

A store holds whatever its user ingested; its DuckDB file, blobs, staged artifacts,
uploads and holder file are created readable by that user alone (files 0600, folders
0700). A umask can only take permissions away from what a file is created with, so the
modes are set explicitly on what sheaf creates; what existed before is left as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

OWNER_FILE = 0o600
OWNER_FOLDER = 0o700


def owner_only_folders(folder: Path) -> None:
    """`folder` and any missing parents created 0700; existing ones left as they are."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for created in reversed(missing):
        try:
            created.mkdir(mode=OWNER_FOLDER)
        except FileExistsError:  # made meanwhile by another writer: theirs to keep
            continue
        os.chmod(created, OWNER_FOLDER)


def owner_only_file(path: Path | str) -> None:
    """`path` made 0600 (a file sheaf has just created)."""
    os.chmod(path, OWNER_FILE)
