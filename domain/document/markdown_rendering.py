"""Rendering block drafts as Markdown (the canonical text) and as plain text."""

from __future__ import annotations

from collections.abc import Iterable

from .document import Block, BlockDraft, BlockKind, Document, Link
from .link_list import link_list_markdown, link_list_plain
from .metadata import DocumentMetadata

BLOCK_SEPARATOR = "\n\n"


def render_markdown(draft: BlockDraft) -> str:
    """The Markdown of one block, with no leading or trailing blank lines."""
    kind = draft.kind
    if kind is BlockKind.HEADING:
        level = min(max(draft.level, 1), 6)
        return "#" * level + " " + _one_line(draft.text)
    if kind is BlockKind.LIST:
        return _markdown_list(draft)
    if kind is BlockKind.TABLE:
        return _pipe_table(draft.rows)
    if kind is BlockKind.LINKS:
        return link_list_markdown(draft.rows)
    if kind is BlockKind.QUOTE:
        return "\n".join("> " + line if line else ">" for line in draft.text.split("\n"))
    if kind is BlockKind.CODE:
        fence = "```"
        while fence in draft.text:
            fence += "`"
        return f"{fence}{draft.language or ''}\n{draft.text}\n{fence}"
    if kind is BlockKind.REFERENCE:
        return _reference_line(draft)
    if kind is BlockKind.FORMULA and draft.language == "latex":
        # Equations read from a source that writes them as math (OMML, ODF's MathML)
        # are LaTeX, shown as display math.
        return f"$${_one_line(draft.text)}$$"
    if kind is BlockKind.FORMULA:
        # A fence keeps a formula's glyphs as printed (no `*` or `_` read as emphasis)
        # and sets it apart from the prose; its text is not LaTeX, so not `$$`.
        text = _formula_text(draft)
        fence = "```"
        while fence in text:
            fence += "`"
        return f"{fence}formula\n{text}\n{fence}"
    return draft.text


def render_plain(draft: BlockDraft) -> str:
    """The same block without Markdown syntax: no `#`, `|`, `*`, `>` or fences."""
    kind = draft.kind
    if kind is BlockKind.LIST:
        lines = []
        for item in draft.items:
            prefix = (item.marker or "") + " " if item.ordered and item.marker else ""
            lines.append("  " * item.depth + prefix + item.text)
        return "\n".join(lines)
    if kind is BlockKind.TABLE:
        return "\n".join("\t".join(cell for cell in row) for row in draft.rows)
    if kind is BlockKind.LINKS:
        return link_list_plain(draft.rows)
    if kind is BlockKind.REFERENCE:
        return (f"[{draft.label}] " if draft.label else "") + draft.text
    if kind is BlockKind.HEADING:
        return _one_line(draft.text)
    if kind is BlockKind.FORMULA:
        return _formula_text(draft)
    return draft.text


def _formula_text(draft: BlockDraft) -> str:
    """A formula's text with its equation number, as printed, at the end."""
    return f"{draft.text} ({draft.label})" if draft.label else draft.text


def assemble_document(
    drafts: Iterable[BlockDraft],
    *,
    metadata: DocumentMetadata | None = None,
    links: Iterable[Link] = (),
    page_count: int | None = None,
    notes: Iterable[str] = (),
    pages_without_text: Iterable[int] = (),
) -> Document:
    """Place drafts one after another in the canonical text, recording each one's span."""
    parts: list[str] = []
    blocks: list[Block] = []
    offset = 0
    for draft in drafts:
        markdown = render_markdown(draft)
        if not markdown.strip():
            continue
        if parts:
            parts.append(BLOCK_SEPARATOR)
            offset += len(BLOCK_SEPARATOR)
        parts.append(markdown)
        blocks.append(Block(draft=draft, start=offset, end=offset + len(markdown),
                            markdown=markdown))
        offset += len(markdown)
    return Document(
        text="".join(parts),
        blocks=tuple(blocks),
        metadata=metadata or DocumentMetadata(),
        links=tuple(links),
        page_count=page_count,
        notes=tuple(notes),
        pages_without_text=tuple(pages_without_text),
    )


def with_title_heading(drafts: list[BlockDraft], title: str | None) -> list[BlockDraft]:
    """`drafts` under the document's title as their `# ` heading (the title stays in the
    metadata too); unchanged when there is no title or the first block already is it."""
    if not title or not title.strip():
        return drafts
    if drafts and drafts[0].kind is BlockKind.HEADING and drafts[0].level == 1 \
            and _one_line(drafts[0].text) == _one_line(title):
        return drafts
    return [BlockDraft(BlockKind.HEADING, text=_one_line(title), level=1), *drafts]


def document_plain_text(document: Document) -> str:
    """The document as plain text, blocks separated by blank lines."""
    return BLOCK_SEPARATOR.join(render_plain(b.draft) for b in document.blocks)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _markdown_list(draft: BlockDraft) -> str:
    lines: list[str] = []
    counters: list[int] = []
    for item in draft.items:
        # One running number per nesting level, restarted when a deeper list begins.
        del counters[item.depth + 1:]
        counters.extend([0] * (item.depth + 1 - len(counters)))
        counters[item.depth] += 1
        bullet = (item.marker or f"{counters[item.depth]}.") if item.ordered else "-"
        # Four spaces per level nest correctly under both "-" and "10." markers.
        lines.append("    " * item.depth + bullet + " " + _one_line(item.text))
    return "\n".join(lines)


def _reference_line(draft: BlockDraft) -> str:
    text = _one_line(draft.text)
    if draft.label:
        label = draft.label.strip("[]. ")
        return f"{label}. {text}" if label.isdigit() else f"[{label}] {text}"
    return "- " + text


def _pipe_table(rows: tuple[tuple[str, ...], ...]) -> str:
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cells = [[_cell(c) for c in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in cells[1:])
    return "\n".join(lines)


def _cell(text: str) -> str:
    return _one_line(text).replace("\\", "\\\\").replace("|", "\\|")
