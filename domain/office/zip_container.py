"""A ZIP archive's directory, and the limits that keep reading it safe.

A ZIP declares each member's sizes in its central directory; a bomb declares small sizes
and inflates to gigabytes, or declares huge ones outright, and a hostile archive names
members `../../etc/passwd`. The declared figures are checked here before anything is
inflated; the reader then enforces them while inflating (the declared size is a claim).
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from urllib.parse import unquote

import attrs

from ..errors import ErrorKind, SheafError


@attrs.frozen
class ZipMember:
    """One member as the central directory declares it."""

    name: str
    compressed_size: int
    size: int


@attrs.frozen
class ContainerLimits:
    """Caps on what one archive may hold once inflated."""

    max_members: int = 10_000
    max_member_bytes: int = 64 * 1024 * 1024
    max_total_bytes: int = 256 * 1024 * 1024
    max_ratio: float = 200.0
    """Inflated over compressed size; real XML compresses 5-20x, bombs 1000x and more."""
    ratio_floor_bytes: int = 1024 * 1024
    """Members smaller than this inflated are not held to the ratio (a tiny run of
    repeated bytes compresses far past any ratio and harms nobody)."""


DEFAULT_LIMITS = ContainerLimits()


def read_zip_listing(body: bytes) -> tuple[ZipMember, ...]:
    """The members an archive declares; `corrupt` when there is no readable directory."""
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError,
            NotImplementedError) as exc:
        raise SheafError(ErrorKind.CORRUPT, f"not a readable ZIP archive: {exc}") from None
    return tuple(ZipMember(i.filename, i.compress_size, i.file_size) for i in infos
                 if not i.is_dir())


def check_listing(members: tuple[ZipMember, ...],
                  limits: ContainerLimits = DEFAULT_LIMITS) -> None:
    """Refuse (`unsafe_content`, or `too_large` for an honest but oversized member) an
    archive whose directory alone shows it is hostile or too big."""
    if len(members) > limits.max_members:
        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                         f"the archive holds {len(members)} members, over the "
                         f"{limits.max_members} limit")
    total = 0
    for member in members:
        if not is_safe_member_name(member.name):
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"member name {member.name!r} leaves the archive (path traversal)")
        if member.size > limits.max_member_bytes:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"member {member.name} declares {member.size} bytes, over the "
                             f"{limits.max_member_bytes} byte limit per member")
        check_ratio(member.name, member.size, member.compressed_size, limits)
        total += member.size
    if total > limits.max_total_bytes:
        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                         f"the archive inflates to {total} bytes, over the "
                         f"{limits.max_total_bytes} byte limit")


def check_ratio(name: str, size: int, compressed_size: int, limits: ContainerLimits) -> None:
    """Refuse a member inflating past the ratio cap (a ZIP bomb)."""
    if size > limits.ratio_floor_bytes and size > limits.max_ratio * max(compressed_size, 1):
        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                         f"member {name} inflates {size / max(compressed_size, 1):.0f}x "
                         f"({compressed_size} to {size} bytes): a ZIP bomb")


def is_safe_member_name(name: str) -> bool:
    """True for a relative path that stays inside the archive."""
    if not name or "\x00" in name:
        return False
    unified = name.replace("\\", "/")
    if unified.startswith("/") or (len(unified) > 1 and unified[1] == ":"):
        return False
    return ".." not in posixpath.normpath(unified).split("/")


def resolve_member(base: str, href: str) -> str:
    """The member a reference inside member `base` points to; `unsafe_content` when it
    climbs out of the archive."""
    target = unquote(href.split("#", 1)[0])
    if target.startswith("/"):  # OOXML relationships may name parts from the package root
        joined = posixpath.normpath(target.lstrip("/"))
    else:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(base), target))
    if joined.startswith("../") or joined == "..":
        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                         f"reference {href!r} in {base} leaves the archive (path traversal)")
    return joined
