"""File names that are not UTF-8.

A POSIX file name is bytes; Python hands one that is not UTF-8 over with each bad byte
as a lone surrogate (surrogateescape), which opens the file but cannot be stored,
printed or sent as JSON. Everything but the open itself takes the name in a form that
can: each undecodable byte written as `\\xNN`, the same name every time.
"""

from __future__ import annotations


def storable_name(name: str) -> str:
    """`name` unchanged when it is valid Unicode text, else with every byte it smuggles
    as a surrogate (and any other lone surrogate) written as a backslash escape."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file system byte stands for
        return name.encode("utf-8", "backslashreplace").decode("ascii")
    return raw.decode("utf-8", "backslashreplace")
