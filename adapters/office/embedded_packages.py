"""Office packages embedded in Office documents (a workbook inside a slide or a Word
document, a document inside a deck): read as the child documents they are, under the
archive's own size budget, one level deep."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document
from ...domain.document.omissions import LEFT_OUT_PREFIX, Omission, OmissionTally
from ...domain.errors import SheafError
from .container_reading import Container

PackageReader = Callable[[Container, str], Document]
"""A format reader's `read`: what turns an opened package into a document."""
KINDS = {".xlsx": "xlsx", ".xlsm": "xlsx", ".docx": "docx", ".docm": "docx",
         ".pptx": "pptx", ".pptm": "pptx"}
_NAMES = {"xlsx": "workbook", "docx": "document", "pptx": "presentation"}


def embedded_drafts(container: Container, part: str, readers: Mapping[str, PackageReader],
                    tally: OmissionTally, notes: list[str], *, level: int,
                    pages: tuple[int, ...] = ()) -> list[BlockDraft]:
    """The embedded package `part` as a heading ("Embedded workbook: name") over its own
    blocks, one level below `level`, its own account of what it left out added to
    `notes`; nothing, counted as an embedded object left out, when it is no package a
    reader is given for or it cannot be read."""
    kind = KINDS.get("." + part.rsplit(".", 1)[-1].lower()) if "." in part else None
    reader = readers.get(kind) if kind else None
    if reader is None or not container.has(part):
        tally.add(Omission.EMBEDDED_OBJECT)
        return []
    try:
        data = container.read(part)
        limits = attrs.evolve(container.limits, max_total_bytes=container.remaining_bytes())
        # The child spends from the document's own budget (ADR-0029): a deck embedding
        # the same workbook a hundred times is one document's work, not a hundred. Its
        # text is counted again when the parent takes these drafts, which only makes
        # embedded text count double against the (generous) character and cell limits.
        inner = Container(data, limits, budget=container.budget)
        try:
            child = reader(inner, part)
        finally:
            inner.close()
    except SheafError:
        tally.add(Omission.EMBEDDED_OBJECT)
        return []
    assert kind is not None
    name = part.rsplit("/", 1)[-1]
    heading = BlockDraft(BlockKind.HEADING, text=f"Embedded {_NAMES[kind]}: {name}",
                         level=min(level + 1, 6), pages=pages)
    drafts = [heading]
    for block in child.blocks:
        draft = block.draft
        if draft.kind is BlockKind.HEADING:
            draft = attrs.evolve(draft, level=min(draft.level + level + 1, 6))
        drafts.append(attrs.evolve(draft, pages=pages) if pages else draft)
    notes += [f"embedded {name}: {note}" for note in child.notes
              if note != LEFT_OUT_PREFIX + "nothing"]
    return drafts
