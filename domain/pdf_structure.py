"""From positioned text boxes to document blocks: headings, running headers, paragraphs."""

from __future__ import annotations

import re
from collections import Counter

import attrs

from sheaf.domain.document import BlockDraft, BlockKind
from sheaf.domain.pdf_text import join_lines, repair_glyphs

_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+\S")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*$", re.I)
_DIGITS = re.compile(r"\d+")


@attrs.frozen
class TextBox:
    """One text box of a page: its lines, dominant font size and whether it is bold."""

    page: int
    lines: tuple[str, ...]
    size: float
    bold: bool
    bbox: tuple[float, float, float, float]
    chars: int

    @property
    def text(self) -> str:
        return repair_glyphs(join_lines(list(self.lines)))


def body_font_size(boxes: list[TextBox]) -> float:
    """The most common font size, weighted by characters."""
    weights: Counter[float] = Counter()
    for box in boxes:
        weights[box.size] += box.chars
    return weights.most_common(1)[0][0] if weights else 10.0


def running_lines(boxes: list[TextBox], page_count: int) -> set[tuple[str, int]]:
    """Texts (digits masked) repeated near the same height on many pages: headers, footers."""
    if page_count < 3:
        return set()
    seen: dict[tuple[str, int], set[int]] = {}
    for box in boxes:
        if len(box.lines) > 2:
            continue
        key = (_DIGITS.sub("#", box.text.lower()), round(box.bbox[1] / 20))
        seen.setdefault(key, set()).add(box.page)
    threshold = max(3, int(page_count * 0.4))
    return {key for key, pages in seen.items() if len(pages) >= threshold}


def structure_blocks(boxes: list[TextBox], page_count: int) -> list[BlockDraft]:
    """Blocks in reading order: running headers, footers and page numbers removed,
    headings told apart from paragraphs by size, weight, length and numbering."""
    body = body_font_size(boxes)
    repeated = running_lines(boxes, page_count)
    heading_sizes = sorted({b.size for b in boxes if b.size >= body * 1.15}, reverse=True)
    drafts: list[BlockDraft] = []
    for box in boxes:
        text = box.text
        if not text.strip() or _PAGE_NUMBER.match(text):
            continue
        if (_DIGITS.sub("#", text.lower()), round(box.bbox[1] / 20)) in repeated:
            continue
        level = _heading_level(box, text, body, heading_sizes)
        if level:
            drafts.append(BlockDraft(BlockKind.HEADING, text=" ".join(text.split()), level=level,
                                     pages=(box.page,), bbox=box.bbox))
        else:
            drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=" ".join(text.split()),
                                     pages=(box.page,), bbox=box.bbox))
    return drafts


def _heading_level(box: TextBox, text: str, body: float, heading_sizes: list[float]) -> int:
    words = text.split()
    if len(box.lines) > 3 or not 1 <= len(words) <= 20 or not any(c.isalpha() for c in text):
        return 0
    if text.rstrip().endswith((".", ",", ";", ":")) and not _NUMBERED.match(text):
        return 0
    larger = box.size >= body * 1.15
    if not larger and not (box.bold and (box.size >= body * 0.95)):
        return 0
    if larger:
        rank = heading_sizes.index(box.size) if box.size in heading_sizes else 0
        level = min(rank + 1, 3)
    else:
        level = 3
    numbering = re.match(r"^(\d+(?:\.\d+)*)\.?\s", text)
    if numbering:
        level = min(1 + numbering.group(1).count("."), 5) + 1
    return level
