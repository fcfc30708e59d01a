"""OOXML relationships: which part or URL an `r:id` in a part points to."""

from __future__ import annotations

import posixpath

import attrs

from ...domain.office.zip_container import resolve_member
from .container_reading import Container

PACKAGE_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
OFFICE_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R = "{" + OFFICE_RELS + "}"


@attrs.frozen
class Relationship:
    target: str
    """A member path inside the archive, or the URL of an external target."""
    kind: str
    """The relationship type's last word: `hyperlink`, `slide`, `notesSlide`, ..."""
    external: bool


def relationships(container: Container, part: str) -> dict[str, Relationship]:
    """The relationships of `part` by id; empty when it has none."""
    folder, name = posixpath.split(part)
    rels_part = posixpath.join(folder, "_rels", name + ".rels")
    root = container.optional_xml(rels_part)
    found: dict[str, Relationship] = {}
    if root is None:
        return found
    for rel in root.iter(PACKAGE_RELS + "Relationship"):
        rel_id, target = rel.get("Id"), rel.get("Target")
        if not rel_id or target is None:
            continue
        kind = (rel.get("Type") or "").rsplit("/", 1)[-1]
        if rel.get("TargetMode") == "External":
            found[rel_id] = Relationship(target, kind, True)
        else:
            found[rel_id] = Relationship(resolve_member(part, target), kind, False)
    return found
