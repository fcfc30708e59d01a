"""Keeping extracted text within a size limit without cutting a block in half."""

from __future__ import annotations

from .document import BlockDraft, Document
from .markdown_rendering import assemble_document

MAX_TEXT_CHARACTERS = 500_000


def cut_at_block_boundary(document: Document, limit: int = MAX_TEXT_CHARACTERS
                          ) -> tuple[Document, str | None]:
    """The document unchanged when it fits, else its leading blocks that fit and a note."""
    if len(document.text) <= limit:
        return document, None
    kept: list[BlockDraft] = [b.draft for b in document.blocks if b.end <= limit]
    if not kept:
        # A single block larger than the limit: cut it at the last space before the limit.
        first = document.blocks[0].draft
        text = first.text[:limit]
        cut = text.rfind(" ")
        kept = [BlockDraft(first.kind, text=text[:cut] if cut > 0 else text, level=first.level,
                           pages=first.pages)]
    cut_document = assemble_document(kept, metadata=document.metadata, links=document.links,
                                     page_count=document.page_count, notes=document.notes)
    note = (f"text cut from {len(document.text)} to {len(cut_document.text)} characters "
            f"at a block boundary (limit {limit})")
    return cut_document, note
