"""Page furniture: the running headers, footers, page numbers and margin stamps of a PDF.

Running headers and footers (with the printed page number) stay on their pages
(ADR-0013, "Running lines on their pages"): each page's lines become furniture blocks at
that page's boundary in reading order, never inside a block, so a sentence that runs on
to the next page is not cut by them. Margin stamps (an arXiv or journal identifier turned
beside the text) and printer's slugs say the same thing on every page and are kept once,
after the content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

from ..document.document import BlockDraft, BlockKind
from .geometry import bbox_union, vertical_overlap
from .structure import TextBox, is_printed_page_number, masked_running_text
from .text_repairs import join_lines

_WORD = re.compile(r"[^\W\d_]{2}")
_SLUG_DATE = re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_SLUG_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AP]M)?\b", re.IGNORECASE)
_LAYOUT_FILE = re.compile(r"\.(?:qxd|qxp|indd|fm|p65|pm\d|pmd|ps|eps)\b", re.IGNORECASE)
_PROOF_STAGE = re.compile(r"\b(?:\d+(?:st|nd|rd|th)|first|second|third|final)\s+"
                          r"(?:pass|proof)s?\b(?:\s+pages)?|\buncorrected\s+proofs?\b",
                          re.IGNORECASE)
# A sentence's end, and a footnote's number after it ("copies.16", "unavailable.”1").
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*(?:\s?\d{1,3})?$")
_FLOWING = (BlockKind.PARAGRAPH, BlockKind.LIST)


def is_printer_slug(text: str) -> bool:
    """A printer's or typesetter's slug (`book.qxd 2/10/04 3:46 PM Page i`, `4TH PASS
    PAGES`): a date with a time of day, a layout program's file name or a proof stage.
    It says how the file was set, not what the page is, so it is kept once, like a
    margin stamp."""
    return bool(_LAYOUT_FILE.search(text) or _PROOF_STAGE.search(text)) or (
        bool(_SLUG_DATE.search(text)) and bool(_SLUG_TIME.search(text)))


def furniture_blocks(boxes: Sequence[TextBox]) -> list[BlockDraft]:
    """One furniture block per distinct line (digits masked, so "Page 3" and "Page 4" are
    one line), its text as first printed, with every page it is printed on; in the order
    the lines first appear, top of the page first. For margin stamps and slugs."""
    first: dict[str, TextBox] = {}
    pages: dict[str, set[int]] = {}
    for box in sorted(boxes, key=lambda b: (b.page, -b.bbox[3], b.bbox[0])):
        text = " ".join(box.text.split())
        key = masked_running_text(text)
        if not _WORD.search(key):  # a page number (3, iii, 143143) says nothing once
            continue
        first.setdefault(key, box)
        pages.setdefault(key, set()).add(box.page)
    return [BlockDraft(BlockKind.FURNITURE, text=" ".join(box.text.split()),
                       pages=tuple(sorted(pages[key])), bbox=box.bbox)
            for key, box in first.items()]


@attrs.frozen
class PageFurniture:
    """One page's running lines as furniture blocks: those above its text, those below."""

    headers: tuple[BlockDraft, ...] = ()
    footers: tuple[BlockDraft, ...] = ()


def page_furniture(running: Iterable[TextBox], body: Iterable[TextBox]
                   ) -> dict[int, PageFurniture]:
    """Each page's running lines, split into header and footer by where they stand
    against the page's body text (the whole document's, on a page without any). A row
    of the band is one block, its boxes left to right; a page number alone on its row
    joins the nearest other row of its band, else stands as its own block."""
    extents: dict[int, tuple[float, float]] = {}
    for box in body:
        low, high = extents.get(box.page, (box.bbox[1], box.bbox[3]))
        extents[box.page] = (min(low, box.bbox[1]), max(high, box.bbox[3]))
    everywhere = ((min(e[0] for e in extents.values()), max(e[1] for e in extents.values()))
                  if extents else (0.0, 0.0))
    bands: dict[tuple[int, bool], list[TextBox]] = {}
    for box in running:
        low, high = extents.get(box.page, everywhere)
        middle = (box.bbox[1] + box.bbox[3]) / 2
        bands.setdefault((box.page, middle > (low + high) / 2), []).append(box)
    pages: dict[int, PageFurniture] = {}
    for (page, header), boxes in sorted(bands.items()):
        blocks = tuple(_band_blocks(boxes))
        kept = pages.get(page, PageFurniture())
        pages[page] = (attrs.evolve(kept, headers=blocks) if header
                       else attrs.evolve(kept, footers=blocks))
    return pages


def _band_blocks(boxes: list[TextBox]) -> list[BlockDraft]:
    rows: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: (-b.bbox[3], b.bbox[0])):
        row = next((r for r in rows if vertical_overlap(r[0].bbox, box.bbox) >= 0.5), None)
        if row is None:
            rows.append([box])
        else:
            row.append(box)
    numbers = [r for r in rows if all(is_printed_page_number(b.text) for b in r)]
    worded = [r for r in rows if r not in numbers]
    for row in numbers:
        if worded:
            centre = _centre(row)
            nearest = min(worded, key=lambda r: abs(_centre(r) - centre))
            nearest.extend(row)
    merged = worded if worded else numbers
    out: list[BlockDraft] = []
    for row in merged:
        # A page number on a row of its own sits above or below its line, so the
        # pieces read by rows from the top, each row from the left.
        pieces = sorted(row, key=lambda b: (_row_rank(row, b), b.bbox[0]))
        text = " ".join(_printed_once(b) for b in pieces)
        if text:
            out.append(BlockDraft(BlockKind.FURNITURE, text=text, pages=(row[0].page,),
                                  bbox=bbox_union(b.bbox for b in row)))
    return out


def _printed_once(box: TextBox) -> str:
    """The box's text, a page number drawn twice over itself (a fake bold: `143143` in a
    box as wide as `143`) read once."""
    text = " ".join(box.text.split())
    half = len(text) // 2
    size = max((line.size for line in box.lines), default=0.0)
    if (len(text) % 2 == 0 and half and text[:half] == text[half:] and is_printed_page_number(text)
            and box.bbox[2] - box.bbox[0] < OVERPRINTED_WIDTH * size * len(text)):
        return text[:half]
    return text


OVERPRINTED_WIDTH = 0.35
"""A digit is about half an em wide; a number whose glyphs have under this share of an
em each was drawn over itself."""


def _centre(row: list[TextBox]) -> float:
    return sum(b.bbox[1] + b.bbox[3] for b in row) / (2 * len(row))


def _row_rank(row: list[TextBox], box: TextBox) -> int:
    """How many of the row's boxes stand clearly above `box` (0 on its own line)."""
    return sum(1 for other in row if other.bbox[1] > box.bbox[3] - 0.5 * (
        box.bbox[3] - box.bbox[1]) and vertical_overlap(other.bbox, box.bbox) < 0.5)


_CAPTION = re.compile(r"(?i)(?:fig(?:ure)?|table|tab|algorithm|listing|scheme|chart|plate|"
                      r"exhibit)\.?\s*(?:(?:[A-Z]\.?)?\d|[IVX]+\b)")
SHORT_TEXT = 80
"""Characters: about a line of a two-column page. Text shorter than this at a page break
is a heading, a label, an index entry or a running head the detector missed more often
than a paragraph's last or first line."""


def continues(before: BlockDraft, after: BlockDraft) -> bool:
    """Whether `after` goes on with the text of `before` across a page (or column)
    break: both running text of one kind, `after` no caption, and either `after` starts
    with a lower-case letter, or `before` stops mid-sentence and neither side is as short
    as a line (a label, an index entry, a missed running head are not a paragraph's
    parts)."""
    if before.kind not in _FLOWING or after.kind is not before.kind:
        return False
    last = before.items[-1].text if before.items else before.text
    first = after.items[0].text if after.items else after.text
    if _CAPTION.match(first.lstrip()):
        return False
    if first.lstrip()[:1].islower():
        return True
    return (not _SENTENCE_END.search(last.rstrip()) and len(last.strip()) >= SHORT_TEXT
            and len(first.strip()) >= SHORT_TEXT)


def place_furniture(drafts: Sequence[BlockDraft], furniture: dict[int, PageFurniture],
                    page_count: int) -> list[BlockDraft]:
    """`drafts` with each page's footers and the next page's headers between the last
    block of the one and the first of the other, footer first. Where a paragraph goes on
    from one page to the next, they (and the first page's footnotes) come after the
    part on the next page, so no sentence is cut; a block printed over two pages (a
    reference entry) has them after it."""
    out: list[BlockDraft] = []
    shown = 0  # furniture is out for every page before `shown` and `shown`'s headers

    def show_through(page: int) -> None:
        nonlocal shown
        for number in range(shown, min(page, page_count + 1)):
            if number >= 1:
                out.extend(furniture.get(number, PageFurniture()).footers)
            if number + 1 <= page_count:
                out.extend(furniture.get(number + 1, PageFurniture()).headers)
        shown = max(shown, page)

    furnished = {page for page in range(1, page_count)
                 if furniture.get(page, PageFurniture()).footers
                 or furniture.get(page + 1, PageFurniture()).headers}
    ordered = _footnotes_after_continuations(list(drafts), furnished)
    due: int | None = None  # furniture waiting for the part that goes on next page
    flow: BlockDraft | None = None
    for draft in ordered:
        if due is not None and not (draft.kind is BlockKind.FOOTNOTE and draft.pages
                                    and max(draft.pages) < due):
            show_through(due)
            due = None
        if draft.pages:
            first, last = min(draft.pages), max(draft.pages)
            if first > shown and not (flow is not None and continues(flow, draft)):
                show_through(first)
            out.append(draft)
            if last > shown:
                due = max(due or 0, last)
        else:
            out.append(draft)
        if draft.kind is not BlockKind.FOOTNOTE:
            flow = draft
    show_through(page_count + 1)
    return out


def _footnotes_after_continuations(drafts: list[BlockDraft], furnished: set[int]
                                   ) -> list[BlockDraft]:
    """A paragraph and its continuation on a later page joined into one paragraph
    printed on both (its box the first part's), and the footnotes that stood between
    them moved after it; a list going on keeps its two parts, the footnotes after both.
    Only across a page break with running lines (`furnished`: the pages whose break to
    the next has some): where none would stand between the parts, the blocks stay as
    extraction found them."""
    out: list[BlockDraft] = []
    i = 0
    while i < len(drafts):
        j = i
        while j < len(drafts) and drafts[j].kind is BlockKind.FOOTNOTE:
            j += 1
        notes = drafts[i:j]
        if j < len(drafts) and out and _on_later_page(out[-1], drafts[j]) \
                and _across_furniture(out[-1], drafts[j], furnished) \
                and continues(out[-1], drafts[j]):
            before, after = out[-1], drafts[j]
            if before.kind is BlockKind.PARAGRAPH:
                out[-1] = attrs.evolve(before, text=join_lines([before.text, after.text]),
                                       pages=tuple(sorted({*before.pages, *after.pages})))
            else:
                out.append(after)
            out.extend(notes)
            i = j + 1
            continue
        out.extend(notes)
        if j < len(drafts):
            out.append(drafts[j])
        i = j + 1
    return out


def _on_later_page(before: BlockDraft, after: BlockDraft) -> bool:
    return bool(before.pages) and bool(after.pages) and min(after.pages) > max(before.pages)


def _across_furniture(before: BlockDraft, after: BlockDraft, furnished: set[int]) -> bool:
    return any(page in furnished for page in range(max(before.pages), min(after.pages)))
