"""The document model shared by every extractor: ordered blocks over one canonical text."""

from __future__ import annotations

import attrs

from ..worded_enum import WordedEnum
from .extraction_confidence import ExtractionConfidence
from .metadata import DocumentMetadata


class BlockKind(WordedEnum):
    """What a block of a document is."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    QUOTE = "quote"
    CODE = "code"
    CAPTION = "caption"
    FOOTNOTE = "footnote"
    REFERENCE = "reference"
    FORMULA = "formula"
    FURNITURE = "furniture"
    """A paginated source's running header, footer or page number, on its page between
    blocks; or a margin stamp or printer's slug, once per distinct line after the
    content (its pages say where it was printed)."""
    LINKS = "links"
    """The targets of the document's links, after its content: `rows` holds each link's
    text and target, while the link's text stays in the prose (ADR-0035)."""


@attrs.frozen
class ListItem:
    """One item of a (possibly nested) list, flattened in reading order."""

    text: str
    depth: int = 0
    ordered: bool = False
    marker: str | None = None
    """The number as printed on the page ("3."), for ordered items."""


@attrs.frozen
class BlockDraft:
    """A block as an extractor finds it, before it has a place in the canonical text."""

    kind: BlockKind
    text: str = ""
    level: int = 0
    items: tuple[ListItem, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    label: str | None = None
    """Reference or footnote number as printed ("12"), when there is one."""
    language: str | None = None
    pages: tuple[int, ...] = ()
    """1-based page numbers, for blocks from paginated sources."""
    bbox: tuple[float, float, float, float] | None = None
    word_confidences: tuple[float, ...] = ()
    """For text read by OCR: the engine's confidence (0-100) in each word of `text`,
    in order."""


@attrs.frozen
class Block:
    """A block placed in the document: `document.text[start:end] == markdown`."""

    draft: BlockDraft
    start: int
    end: int
    markdown: str

    @property
    def kind(self) -> BlockKind:
        return self.draft.kind

    @property
    def level(self) -> int:
        return self.draft.level


@attrs.frozen
class Link:
    """A hyperlink found in the content: its text stays in the prose, its target here."""

    text: str
    url: str
    rel: str | None = None
    media_type: str | None = None


@attrs.frozen
class Document:
    """An extracted document: canonical Markdown text, its blocks and what it says of itself."""

    text: str
    blocks: tuple[Block, ...]
    metadata: DocumentMetadata = attrs.field(factory=DocumentMetadata)
    links: tuple[Link, ...] = ()
    page_count: int | None = None
    notes: tuple[str, ...] = ()
    """What the extractor wants the caller to know (cuts, recoveries, ...)."""
    pages_without_text: tuple[int, ...] = ()
    """Pages of a PDF that have no text layer (what OCR may read)."""
    confidence: ExtractionConfidence | None = None
    """How far the extractor trusts its choice of the main content (HTML pages); None
    where the source has no chrome to choose from (PDF, Office, plain text)."""

    @property
    def title(self) -> str | None:
        return self.metadata.title

    @property
    def report(self) -> tuple[str, ...]:
        """The notes, with the pages without text, as diagnostics show them."""
        if not self.pages_without_text:
            return self.notes
        pages = ", ".join(map(str, self.pages_without_text))
        return (*self.notes, f"pages_without_text: {pages}")

    @property
    def word_count(self) -> int:
        return sum(len(b.draft.text.split()) for b in self.blocks) + sum(
            len(item.text.split()) for b in self.blocks for item in b.draft.items
        )

    def headings(self) -> tuple[Block, ...]:
        return tuple(b for b in self.blocks if b.kind is BlockKind.HEADING)
