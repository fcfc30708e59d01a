"""Naming output files after their inputs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...adapters.files.filesystem_file_reader import TYPE_HINTS


def output_name(source: str) -> str:
    """A file stem for an input: its name without .gz and extension, or the URL's tail."""
    stem = _tail(source)
    for suffix in (".gz", *TYPE_HINTS):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return _safe(stem)


def output_names(sources: Sequence[str]) -> dict[str, str]:
    """A distinct file stem for each distinct input, so no output replaces another:
    inputs whose stems agree (`A.xlsx`, `A.csv`) keep their extension (`A.xlsx`,
    `A.csv`); inputs whose names agree too (`a/x.md`, `b/x.md`) are numbered in the
    order given (`x`, `x-2`)."""
    distinct = list(dict.fromkeys(sources))
    stems = Counter(output_name(s).lower() for s in distinct)
    first = {s: output_name(s) if stems[output_name(s).lower()] == 1 else _safe(_tail(s))
             for s in distinct}
    taken: set[str] = set()
    names: dict[str, str] = {}
    for source in distinct:
        name, number = first[source], 1
        while name.lower() in taken:  # case-insensitive: some file systems fold case
            number += 1
            name = f"{first[source]}-{number}"
        taken.add(name.lower())
        names[source] = name
    return names


def _tail(source: str) -> str:
    return source.rstrip("/").rsplit("/", 1)[-1] or "index"


def _safe(stem: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "document"
