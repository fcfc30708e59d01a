"""Naming output files after their inputs."""

from __future__ import annotations

from ...adapters.files.filesystem_file_reader import TYPE_HINTS


def output_name(source: str) -> str:
    """A file stem for an input: its name without .gz and extension, or the URL's tail."""
    stem = source.rstrip("/").rsplit("/", 1)[-1] or "index"
    for suffix in (".gz", *TYPE_HINTS):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "document"
