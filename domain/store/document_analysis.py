"""The one analysis of a version: its sections, text profile and chunks, computed once
from the extracted document (at ingest) or from the stored text and blocks (migrating a
store written before structure was stored)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ..analysis.chunking import (
    DEFAULT_SIZES,
    BlockSpan,
    Chunk,
    ChunkSizes,
    chunk_document,
    estimate_tokens,
)
from ..analysis.sections import Heading, Section, detect_sections, headings_from_blocks
from ..analysis.text_profile import TextProfile, profile_text
from ..analysis.token_counting import ESTIMATED_TOKENS, TokenCounting
from ..document.content_source import ContentSource
from ..document.document import BlockKind, Document
from .knowledge_records import BlockRow


@attrs.frozen
class VersionAnalysis:
    """What a version's text yields, once: sections, profile and chunks."""

    sections: tuple[Section, ...]
    profile: TextProfile
    chunks: tuple[Chunk, ...]


@attrs.frozen
class StoredStructure:
    """A stored version's sections and profile, as saved with it."""

    sections: tuple[Section, ...]
    profile: TextProfile
    chunk_sizes: ChunkSizes = DEFAULT_SIZES
    """The sizes its chunks were cut to: reindexing cuts them to the same."""


def analyse_version(document: Document, version_id: str, sizes: ChunkSizes = DEFAULT_SIZES,
                    counting: TokenCounting = ESTIMATED_TOKENS,
                    source: ContentSource | None = None) -> VersionAnalysis:
    """Sections, profile and chunks (sized in `counting`'s unit, snippets within its
    input limit) of a freshly extracted document; `source` is the kind of content its
    text came from (None: a paper's layout is assumed)."""
    sections = document_sections(document, source)
    profile = profile_text(document.text,
                           [(b.kind.value, b.start, b.end) for b in document.blocks])
    blocks = [BlockSpan(b.kind.value, b.start, b.end, b.draft.pages) for b in document.blocks]
    chunks = chunk_document(document.text, blocks, sections, version_id=version_id,
                            title=document.title, sizes=sizes, count=counting.count,
                            input_limit=counting.limit)
    return VersionAnalysis(sections, profile, chunks)


PAPER_LAYOUTS = frozenset({ContentSource.PDF, ContentSource.HTML, ContentSource.OCR})
"""The kinds of content whose untitled opening text may be an abstract: a paper's pages
and article pages put one there. A note, a plain-text or Markdown file, a Word document,
a slide deck or a book does not: its opening is just its first section (issue 32)."""


def infers_leading_abstract(source: ContentSource | str | None) -> bool:
    """Whether the text before the first heading of content from `source` is taken as
    an abstract when it is abstract-sized (None: not known, as before it was stored)."""
    if source is None:
        return True
    try:
        return ContentSource(source) in PAPER_LAYOUTS
    except ValueError:  # a kind this version does not know
        return False


def document_sections(document: Document, source: ContentSource | None = None
                      ) -> tuple[Section, ...]:
    headings = [Heading(b.draft.text, b.level, b.start, b.end) for b in document.blocks
                if b.kind is BlockKind.HEADING]
    furniture = [(b.start, b.end) for b in document.blocks if b.kind is BlockKind.FURNITURE]
    return detect_sections(document.text, headings, title=document.title,
                           abstract=document.metadata.abstract, furniture=furniture,
                           leading_abstract=infers_leading_abstract(source))


def document_chunks(document: Document, version_id: str,
                    sizes: ChunkSizes = DEFAULT_SIZES,
                    counting: TokenCounting = ESTIMATED_TOKENS) -> tuple[Chunk, ...]:
    """Chunks sized in `counting`'s unit, snippets within its input limit."""
    return analyse_version(document, version_id, sizes, counting).chunks


def stored_structure(text: str, blocks: Sequence[BlockRow], title: str | None,
                     abstract: str | None, source: str | None = None) -> StoredStructure:
    """Sections and profile of stored text from its block rows (what a store written
    before they were stored is migrated with)."""
    headings = headings_from_blocks(text, [(b.kind, b.start, b.end, b.level) for b in blocks])
    furniture = [(b.start, b.end) for b in blocks if b.kind == BlockKind.FURNITURE.value]
    sections = detect_sections(text, headings, title=title, abstract=abstract,
                               furniture=furniture,
                               leading_abstract=infers_leading_abstract(source))
    return StoredStructure(sections, profile_text(text, [(b.kind, b.start, b.end)
                                                         for b in blocks]))


def rechunk(text: str, blocks: Sequence[BlockRow], structure: StoredStructure,
            version_id: str, title: str | None,
            count: Callable[[str], int] = estimate_tokens, input_limit: int | None = None,
            retrieval_prefix: bool = True) -> tuple[Chunk, ...]:
    """A stored version's chunks again, from its stored sections (reindexing)."""
    spans = [BlockSpan(b.kind, b.start, b.end, b.pages) for b in blocks]
    return chunk_document(text, spans, structure.sections, version_id=version_id,
                          title=title, sizes=structure.chunk_sizes,
                          count=count, retrieval_prefix=retrieval_prefix,
                          input_limit=input_limit)
