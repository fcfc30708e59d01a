"""A disk that refuses writes, said as the typed error it is, the same from the click
commands and from the console script's own answers (which run before click loads)."""

from __future__ import annotations

from ...domain.errors import ErrorKind, SheafError


def disk_refused(exc: OSError) -> SheafError | None:
    """A full or read-only disk as the typed `storage` error it is (any other OS error
    stays unforeseen)."""
    import errno

    if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        return None
    where = f" writing {exc.filename}" if exc.filename else ""
    return SheafError(ErrorKind.STORAGE, f"the disk refused a write{where} "
                      f"({exc.strerror}): free space (or remount it writable) and run the "
                      "command again; reading commands work meanwhile")
