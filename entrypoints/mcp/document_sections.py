"""Finding one section of a document for a read: by its index in the section list, or by
label or heading."""

from __future__ import annotations

from ...domain.errors import ErrorKind, SheafError
from ..api.knowledge_api import KnowledgeApi


async def section_span(knowledge: KnowledgeApi, reference: str, name: str) -> tuple[int, int]:
    """A section by its index (labels repeat: a report may have many `other` sections), or
    else by label or heading as quotes find them."""
    if name.isdigit():
        sections = await knowledge.sections(reference)
        chosen = next((s for s in sections if s.index == int(name)), None)
        if chosen is None:
            raise SheafError(ErrorKind.OUT_OF_RANGE,
                             f"document {reference} has no section {name}; its sections are "
                             f"numbered {sections[0].index if sections else 0}-"
                             f"{sections[-1].index if sections else 0}")
        return chosen.start, chosen.end
    (whole,) = await knowledge.quote(reference, section=name)
    return whole.start, whole.end
