"""Writing a file so that readers, even after a crash, see all of it or none of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .owner_only import owner_only_folders


def write_atomically(target: Path, data: bytes) -> None:
    """Write beside the target, flush to disk, then rename over it. The file is its
    owner's alone (0600, as `mkstemp` makes it), and so are the folders made for it."""
    owner_only_folders(target.parent)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
