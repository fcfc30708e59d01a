"""Sections and chunks of a freshly extracted document (before it is stored)."""

from __future__ import annotations

from sheaf.domain.chunking import DEFAULT_SIZES, BlockSpan, Chunk, ChunkSizes, chunk_document
from sheaf.domain.document import BlockKind, Document
from sheaf.domain.sections import Heading, Section, detect_sections
from sheaf.domain.token_counting import ESTIMATED_TOKENS, TokenCounting


def document_sections(document: Document) -> tuple[Section, ...]:
    headings = [Heading(b.draft.text, b.level, b.start, b.end) for b in document.blocks
                if b.kind is BlockKind.HEADING]
    return detect_sections(document.text, headings, title=document.title,
                           abstract=document.metadata.abstract)


def document_chunks(document: Document, version_id: str,
                    sizes: ChunkSizes = DEFAULT_SIZES,
                    counting: TokenCounting = ESTIMATED_TOKENS) -> tuple[Chunk, ...]:
    """Chunks sized in `counting`'s unit, snippets within its input limit."""
    blocks = [BlockSpan(b.kind.value, b.start, b.end, b.draft.pages) for b in document.blocks]
    return chunk_document(document.text, blocks, document_sections(document),
                          version_id=version_id, title=document.title, sizes=sizes,
                          count=counting.count, input_limit=counting.limit)
