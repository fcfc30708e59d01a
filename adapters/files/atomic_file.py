"""Writing a file so that readers, even after a crash, see all of it or none of it."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from ...domain.errors import ErrorKind, SheafError
from .owner_only import owner_only_folders

_DISK_REFUSED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


def write_atomically(target: Path, data: bytes) -> None:
    """Write beside the target, flush to disk, then rename over it. The file is its
    owner's alone (0600, as `mkstemp` makes it), and so are the folders made for it; a
    full or read-only disk is `storage`, saying so (nothing half-written is left)."""
    try:
        _write(target, data)
    except OSError as exc:
        if exc.errno not in _DISK_REFUSED:
            raise
        raise SheafError(ErrorKind.STORAGE,
                         f"cannot write {target}: {exc.strerror}; free space (or remount "
                         "the disk writable) and run the command again") from None


def _write(target: Path, data: bytes) -> None:
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
