"""Opening a file only if what is opened lies inside given folders.

Checking a path and then opening it is a race: between the two, a writer inside the
folder can swap the file for a symbolic link to a secret outside (issue 30 saw one
ingested within 150 tries). So the check is made on what is opened: the walk starts
from a descriptor held on the folder itself, and each component is opened relative to
the one before with O_NOFOLLOW (a link anywhere in the path fails the open instead of
being followed); the opened file is then fstat'ed and must be a regular file. What is
read is what was checked.

Hard links (ADR-0029): a hard link is the file itself, not a pointer a walk could
refuse, and its inode may be anywhere on the same file system. With the kernel's
`fs.protected_hardlinks` on (the default of every current distribution), only someone
who may read and write the target can create the link, so it gives a writer nothing
they could not copy in anyway; a file with several links is then accepted. With the
protection off (or unknown), a file with more than one link is refused.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path, PurePath

from ...domain.errors import ErrorKind, SheafError

_PROTECTED_HARDLINKS = Path("/proc/sys/fs/protected_hardlinks")


def open_confined(path: str, roots: Sequence[str]) -> int:
    """A read-only descriptor of the regular file at `path` (absolute, with no `..`),
    opened without following any link below the root it lies in; `path_not_allowed`
    when it lies in none of `roots`, when any component is (or has become) a link, or
    when it is not a regular file; `input_not_found` when it is missing."""
    target = PurePath(os.path.abspath(path))
    for root in roots:
        base = PurePath(root)
        if target != base and base in target.parents:
            return _walk(base, target.relative_to(base).parts, path)
    raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                     f"{path} is outside the folders this server may read")


def _walk(root: PurePath, parts: tuple[str, ...], shown: str) -> int:
    try:
        current = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise SheafError(ErrorKind.INPUT_NOT_FOUND,
                         f"the allowed folder {root} cannot be opened: {exc.strerror}") \
            from None
    try:
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (
                os.O_NONBLOCK if last else os.O_DIRECTORY)  # a FIFO must not block us
            try:
                opened = os.open(part, flags, dir_fd=current)
            except OSError as exc:
                raise _refusal(exc, shown) from None
            os.close(current)
            current = opened
        _check_opened(current, shown)
        return current
    except BaseException:
        os.close(current)
        raise


def _refusal(exc: OSError, shown: str) -> SheafError:
    if exc.errno == errno.ENOENT:
        return SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {shown}")
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return SheafError(ErrorKind.PATH_NOT_ALLOWED,
                          f"{shown} goes through a symbolic link (or changed while it was "
                          "opened): links are not followed inside the allowed folders")
    return SheafError(ErrorKind.INPUT_NOT_FOUND, f"{shown} cannot be opened: {exc.strerror}")


def _check_opened(descriptor: int, shown: str) -> None:
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        raise SheafError(ErrorKind.PATH_NOT_ALLOWED, f"{shown} is not a regular file")
    if status.st_nlink > 1 and not hard_links_protected():
        raise SheafError(ErrorKind.PATH_NOT_ALLOWED,
                         f"{shown} has {status.st_nlink} hard links and this system does "
                         "not protect hard links (fs.protected_hardlinks=0): it could be "
                         "a file from outside the allowed folders")


def hard_links_protected() -> bool:
    """Whether the kernel lets only those who may read and write a file link to it."""
    try:
        return _PROTECTED_HARDLINKS.read_text().strip() == "1"
    except OSError:
        return False


def read_descriptor(descriptor: int, max_bytes: int, shown: str) -> bytes:
    """The whole file behind `descriptor` (closed after), `too_large` past `max_bytes`."""
    with os.fdopen(descriptor, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE, f"{shown} is over the {max_bytes} byte limit")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise SheafError(ErrorKind.TOO_LARGE, f"{shown} is over the {max_bytes} byte limit")
    return data
