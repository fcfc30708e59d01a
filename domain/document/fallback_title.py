"""A title for every document: what it says of itself, else its first heading, else the
name of the file it came from, marked as such in its notes."""

from __future__ import annotations

import posixpath
from urllib.parse import unquote, urlsplit

import attrs

from .document import BlockKind, Document

FILE_NAME_NOTE = "title: taken from the file name (the document names no title)"
ATTACHMENT_FRAGMENT = "attachment="
"""How the location of a message's attachment names it (`mail.eml#attachment=a.pdf`)."""
HEADING_NOTE = "title: taken from the first heading (the document names no title)"
TITLE_NOTES = frozenset({FILE_NAME_NOTE, HEADING_NOTE})


def with_fallback_title(document: Document, location: str, *,
                        first_heading: bool = True) -> Document:
    """`document` with a title: its own (core properties, package metadata), else its
    first heading, else the file name without its extension (with a note saying so).

    A spreadsheet's headings are its sheets' names, not titles: `first_heading=False`
    goes from its own title straight to the file name (as CSV files always did), so the
    first sheet keeps its section."""
    if document.title and document.title.strip():
        return document
    heading = next((b.draft.text for b in document.blocks
                    if b.kind is BlockKind.HEADING and b.draft.text.strip()), None) \
        if first_heading else None
    if heading is not None:
        return _titled(document, heading, HEADING_NOTE)
    name = file_name_title(location)
    return _titled(document, name, FILE_NAME_NOTE) if name else document


def file_name_title(location: str) -> str | None:
    """The last path segment of a path or URL, without its extension (`report.docx` is
    "report"); None when there is none."""
    base, _, fragment = location.partition("#")
    if fragment.startswith(ATTACHMENT_FRAGMENT):  # a file attached to a message
        base = fragment[len(ATTACHMENT_FRAGMENT):]
    path = urlsplit(base).path if "://" in base else base
    path = path.replace("\\", "/").rstrip("/")
    name = unquote(posixpath.basename(path))
    for suffix in (".gz",):
        name = name.removesuffix(suffix)
    stem, dot, extension = name.rpartition(".")
    if dot and stem and 0 < len(extension) <= 5 and extension.isalnum():
        name = stem
    name = " ".join(name.split())
    return name or None


def _titled(document: Document, title: str, note: str) -> Document:
    metadata = attrs.evolve(document.metadata, title=" ".join(title.split()))
    return attrs.evolve(document, metadata=metadata, notes=(*document.notes, note))
