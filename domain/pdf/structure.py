"""From positioned text lines to document blocks: headings, running headers, paragraphs.

The pass works on pdfminer's text boxes but decides line by line, because layout
analysis often puts a section heading and the paragraph under it in one box.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import groupby, pairwise

import attrs

from ..analysis.section_labels import label_heading
from ..document.document import BlockDraft, BlockKind
from .geometry import Bbox, bbox_union, vertical_overlap
from .text_repairs import is_right_to_left, join_lines, repair_glyphs

_NUMBERING = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S|^([IVX]+|[A-Z])\.\s+\S")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*$", re.I)
_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"\b[ivxlc]+\b")
_UNMAPPED_GLYPH = re.compile(r"\(cid:\d+\)|[\ufffe\uffff]")
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|medi|[-,]bd\b|cmbx|cmb\d|cmssbx|"
                        r"\bbx\d|-b$", re.IGNORECASE)
MAX_HEADING_WORDS = 16


@attrs.frozen
class TextLine:
    """One laid-out line: its text, dominant font and size, and whether it is bold."""

    text: str
    size: float
    font: str
    bold: bool
    chars: int
    bbox: tuple[float, float, float, float]
    math: int = 0
    """How many of its glyphs are set in a math font or are mathematical symbols."""


@attrs.frozen
class TextBox:
    """One text box of a page, as layout analysis grouped its lines."""

    page: int
    lines: tuple[TextLine, ...]
    bbox: tuple[float, float, float, float]

    @functools.cached_property
    def text(self) -> str:
        """The lines' text, cleaned; worked out once (a box's text is read by several
        passes: tables, formulas, furniture, titles, structure)."""
        return clean_text([line.text for line in self.lines])

    @property
    def chars(self) -> int:
        return sum(line.chars for line in self.lines)


def pages_of(boxes: Sequence[TextBox]) -> Iterator[list[TextBox]]:
    """The boxes of each page in turn; `boxes` must come page by page, as read."""
    for _, page in groupby(boxes, key=lambda box: box.page):
        yield list(page)


def is_bold_font(font_name: str) -> bool:
    """Bold, semibold or medium by the font's name (subset prefix ignored): Times-Bold,
    NimbusRomNo9L-Medi, CMBX10, LMRoman10-Bold, Arial-BoldMT, ..."""
    return bool(_BOLD_NAME.search(font_name.split("+", 1)[-1]))


def clean_text(lines: list[str]) -> str:
    """Lines joined (hyphenation repaired), glyphs repaired, unmapped glyphs dropped."""
    return " ".join(_UNMAPPED_GLYPH.sub("", repair_glyphs(join_lines(lines))).split())


@attrs.frozen
class BodyStyle:
    """The running text's font and size, by character count."""

    size: float
    font: str

    @classmethod
    def of(cls, boxes: list[TextBox]) -> BodyStyle:
        sizes: Counter[float] = Counter()
        fonts: Counter[str] = Counter()
        for box in boxes:
            for line in box.lines:
                sizes[line.size] += line.chars
                fonts[line.font] += line.chars
        size = sizes.most_common(1)[0][0] if sizes else 10.0
        font = fonts.most_common(1)[0][0] if fonts else ""
        return cls(size, font)


def running_lines(boxes: list[TextBox], page_count: int) -> set[tuple[str, int]]:
    """Texts (digits masked) repeated near the same height on many pages: headers, footers."""
    if page_count < 3:
        return set()
    seen: dict[tuple[str, int], set[int]] = {}
    for box in boxes:
        if len(box.lines) <= 2:
            seen.setdefault(_running_key(box), set()).add(box.page)
    # On a long book a running line need not be on 40% of the pages: a slug on the 38
    # pages of the front matter is as much a running line as a chapter's header.
    threshold = max(3, min(int(page_count * 0.4), 12))
    return {key for key, pages in seen.items() if len(pages) >= threshold}


def _running_key(box: TextBox) -> tuple[str, int]:
    return (masked_running_text(box.text), round(box.bbox[1] / 20))


def masked_running_text(text: str) -> str:
    """A running line's text with what changes from page to page masked: digits and lone
    roman numerals (page numbers, dates and times in a printer's slug, "book.qxd 2/10/04
    3:46 PM Page iv")."""
    return _ROMAN.sub("#", _DIGITS.sub("#", text.lower()))


def join_title(drafts: list[BlockDraft], title: str | None) -> list[BlockDraft]:
    """Headings on page 1 that are consecutive pieces of the title become one heading."""
    if not title:
        return drafts
    out: list[BlockDraft] = []
    for draft in drafts:
        previous = out[-1] if out else None
        if (previous is not None and previous.kind is BlockKind.HEADING
                and draft.kind is BlockKind.HEADING and 1 in previous.pages
                and 1 in draft.pages and title.startswith(previous.text)
                and title.startswith(f"{previous.text} {draft.text}")):
            out[-1] = attrs.evolve(previous, text=f"{previous.text} {draft.text}")
        else:
            out.append(draft)
    return out


def merge_right_to_left_rows(boxes: list[TextBox]) -> list[TextBox]:
    """Join the one-line boxes layout analysis split a right-to-left row into, ordered from
    the right edge, so the row reads as it was written. A piece with no letters (a
    section number `2-5-`, a dash) standing beside right-to-left text joins it; pieces
    that touch are one word split in two, joined with no space."""
    merged: list[TextBox] = []
    for box in boxes:
        previous = merged[-1] if merged else None
        if (previous is not None and previous.page == box.page and len(box.lines) == 1
                and len(previous.lines) == 1 and _same_row(previous.bbox, box.bbox)
                and _right_to_left_pair(previous.text, box.text)):
            parts = sorted((previous, box), key=lambda b: -b.bbox[2])
            first, second = parts[0].lines[0], parts[1].lines[0]
            gap = parts[0].bbox[0] - parts[1].bbox[2]
            # Touching pieces of letters with no space glyph where they meet are one
            # word; a number beside words is not.
            word = (gap <= TOUCHING * first.size and _has_letters(first.text)
                    and _has_letters(second.text) and not first.text.strip("\n")[-1:].isspace()
                    and not second.text.strip("\n")[:1].isspace())
            # The outer ends keep their spaces: a space glyph at the row's logical end
            # still says the next piece is another word.
            ahead, after = first.text.strip("\n"), second.text.strip("\n")
            text = f"{ahead}{after}" if word else f"{ahead.rstrip()} {after.lstrip()}"
            line = attrs.evolve(first, text=text, chars=first.chars + second.chars)
            merged[-1] = TextBox(page=box.page, lines=(line,),
                                 bbox=bbox_union((previous.bbox, box.bbox)))
        else:
            merged.append(box)
    return merged


def rejoin_split_rows(lines: list[TextLine]) -> list[TextLine]:
    """A paragraph's lines with each row that layout analysis cut in pieces read as one
    line, in writing order. Justified text stretches the spaces of a short line until a
    gap is wider than the character margin, and the row then comes back as two lines of
    one box, in either order (`tory anemia’,` after `‘iron’ and ‘hemoglobin’.`). Only in a
    box of prose: most rows one line, and the pieces reaching from the box's left edge to
    its right, as a justified line does; a box of table cells keeps its cells."""
    rows: list[list[int]] = []
    for i, line in enumerate(lines):
        row = next((r for r in rows if vertical_overlap(lines[r[0]].bbox, line.bbox) >= 0.5
                    and all(_apart(lines[k], line) for k in r)), None)
        if row is None:
            rows.append([i])
        else:
            row.append(i)
    split = [row for row in rows if len(row) > 1]
    if not split or len(rows) < 3 or len(split) * 3 > len(rows):
        return lines
    left = min(line.bbox[0] for line in lines)
    right = max(line.bbox[2] for line in lines)
    joined: dict[int, TextLine] = {}
    first_of: dict[int, int] = {}
    for row in split:
        pieces = sorted((lines[k] for k in row), key=lambda ln: ln.bbox[0])
        em = max(piece.size for piece in pieces)
        if pieces[0].bbox[0] - left > em or right - pieces[-1].bbox[2] > em:
            continue
        if is_right_to_left(" ".join(piece.text for piece in pieces)):
            pieces.reverse()
        widest = max(pieces, key=lambda piece: piece.chars)
        joined[row[0]] = attrs.evolve(
            widest, text=" ".join(piece.text.strip() for piece in pieces),
            chars=sum(piece.chars for piece in pieces),
            bold=all(piece.bold for piece in pieces),
            math=sum(piece.math for piece in pieces),
            bbox=bbox_union(piece.bbox for piece in pieces))
        first_of.update({k: row[0] for k in row})
    # The row stands where its first piece stood.
    return [joined.get(i, line) for i, line in enumerate(lines)
            if first_of.get(i, i) == i]


def _apart(a: TextLine, b: TextLine) -> bool:
    return min(a.bbox[2], b.bbox[2]) <= max(a.bbox[0], b.bbox[0])


TOUCHING = 0.05
"""Pieces of a row closer than this share of the type size are parts of one word."""


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _right_to_left_pair(a: str, b: str) -> bool:
    def neutral(text: str) -> bool:
        return bool(text.strip()) and not any(c.isalpha() for c in text)

    return (is_right_to_left(a) and (is_right_to_left(b) or neutral(b))) or (
        neutral(a) and is_right_to_left(b))


def _same_row(a: Bbox, b: Bbox) -> bool:
    return vertical_overlap(a, b) >= 0.5


def outline_key(title: str) -> str:
    """How a bookmark title and a heading line are compared."""
    return " ".join(re.sub(r"[^\w]+", " ", title.lower()).split())


_RULER_LINE = re.compile(r"^\s*[^\W\d_]{0,2}(\d{1,4})[^\W\d_]{0,2}\s*$")


def is_line_number_ruler(box: TextBox) -> bool:
    """A column of consecutive line numbers (a manuscript's or a proof's ruler): at least
    five lines, nearly all a bare number, nearly all one more than the line before."""
    numbers = [int(m.group(1)) for line in box.lines if (m := _RULER_LINE.match(line.text))]
    if len(box.lines) < 5 or len(numbers) < 0.8 * len(box.lines):
        return False
    steps = sum(1 for a, b in pairwise(numbers) if b == a + 1)
    return steps >= 0.8 * (len(numbers) - 1)


def is_decorative(text: str) -> bool:
    """A run of ornaments or rules (`❙❚❘❙❚`, `* * *`, `-----`): no letter or digit."""
    return len(text.replace(" ", "")) >= 3 and not any(c.isalnum() for c in text)


def structure_blocks(boxes: list[TextBox], page_count: int,
                     outline: tuple[tuple[str, int], ...] = (),
                     notes: list[str] | None = None,
                     furniture: list[TextBox] | None = None) -> list[BlockDraft]:
    """Blocks in reading order: running headers, footers and page numbers taken out,
    headings told apart from paragraphs by size, weight, font, length and numbering.
    Lines that repeat a bookmark title are headings at the bookmark's depth. What is
    dropped or set aside by rule is counted in `notes`; the running lines and the page
    numbers above or below a page's text go to `furniture`, to be put back at their
    pages' boundaries (`furniture.place_furniture`)."""
    dropped: Counter[str] = Counter()
    in_references = False
    extents = _page_extents(boxes)
    bookmarks = {outline_key(title): depth for title, depth in outline}
    boxes = merge_right_to_left_rows(boxes)
    body = BodyStyle.of(boxes)
    repeated = running_lines(boxes, page_count)
    heading_sizes = sorted({line.size for box in boxes for line in box.lines
                            if line.size >= body.size * 1.12}, reverse=True)
    reasons = [_drop_reason(box, repeated) for box in boxes]
    body_boxes = [box for box, reason in zip(boxes, reasons, strict=True)
                  if reason is None and box.text]
    body_extents = _page_extents(body_boxes)
    body_spans = _page_spans(body_boxes)
    kept: Counter[str] = Counter()
    drafts: list[BlockDraft] = []
    for box, reason in zip(boxes, reasons, strict=True):
        text = box.text
        if not text:
            continue
        if reason == "running_lines" and not _WORDED.search(masked_running_text(text)) \
                and not (is_printed_page_number(text) and _outside_text(box, body_extents)):
            reason = "letterless_running_lines"  # glyphs of a figure, rules, ornaments
        if reason == "running_lines" or (reason == "page_numbers"
                                         and _outside_text(box, body_extents)):
            # Running lines and printed page numbers stay on their pages as furniture.
            kept[reason] += 1
            if furniture is not None:
                furniture.append(box)
            continue
        if reason == "page_numbers" and _among_text(box, body_spans):
            # A lone number among the page's text is no page number: a figure's tick
            # label or a table's cell, text the page prints (pdftotext keeps it too).
            # Beside the text it is a line-number ruler's; above or below, the page's.
            reason = None
        if reason:
            dropped[reason] += 1
            continue
        lines = list(box.lines)
        while lines and (_heading_like(lines[0], body, single=len(lines) == 1)
                         or outline_key(lines[0].text) in bookmarks):
            # One heading is a run of lines in one style; "METHODS" over "Search strategy"
            # are two headings, not one.
            heading = [lines.pop(0)]
            while (lines and len(heading) < 3 and _same_style(lines[0], heading[0])
                   and _heading_like(lines[0], body, single=False)):
                heading.append(lines.pop(0))
            heading_text = clean_text([line.text for line in heading])
            if len(heading_text.split()) > MAX_HEADING_WORDS:
                lines = heading + lines
                break
            depth = bookmarks.get(outline_key(heading_text))
            level = (min(depth + 2, 6) if depth is not None
                     else _heading_level(heading[0], heading_text, body, heading_sizes))
            drafts.append(BlockDraft(BlockKind.HEADING, text=heading_text, level=level,
                                     pages=(box.page,), bbox=box.bbox))
            in_references = label_heading(heading_text) == "references"
        if lines and in_references:
            add_reference_entries(drafts, lines, box)
        elif lines and is_footnote(lines, box, body, extents):
            marker = _FOOTNOTE_MARKER.match(lines[0].text)
            drafts.append(BlockDraft(BlockKind.FOOTNOTE, text=clean_text(
                [line.text for line in lines]), label=marker.group(1) if marker else None,
                pages=(box.page,), bbox=box.bbox))
        elif lines:
            paragraph = clean_text([line.text for line in lines])
            if paragraph:
                drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=paragraph,
                                         pages=(box.page,), bbox=box.bbox))
    drafts = footnotes_after_their_page(drafts)
    if notes is not None:
        notes.extend(f"{reason}_dropped: {count} blocks"
                     for reason, count in sorted(dropped.items()))
        notes.extend(f"{reason}_kept_as_furniture: {count} blocks"
                     for reason, count in sorted(kept.items()))
    return drafts


_WORDED = re.compile(r"[^\W\d_]{2}")
_PRINTED_PAGE_NUMBER = re.compile(
    r"^[\s\-–—|.]*(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?[\s\-–—|.]*$",
    re.IGNORECASE)


def is_printed_page_number(text: str) -> bool:
    """A page number as printed: `3`, `- 12 -`, `Page 4 of 9`, `xiv`, `12/40`; or one
    drawn twice over itself (a fake bold), which reads `143143`."""
    text = " ".join(text.split())
    half = len(text) // 2
    return bool(_PRINTED_PAGE_NUMBER.match(text)) or (
        len(text) % 2 == 0 and text[:half] == text[half:]
        and bool(_PRINTED_PAGE_NUMBER.match(text[:half])))


def _drop_reason(box: TextBox, repeated: set[tuple[str, int]]) -> str | None:
    text = box.text
    return ("page_numbers" if _PAGE_NUMBER.match(text)
            else "running_lines" if _running_key(box) in repeated
            else "line_number_rulers" if is_line_number_ruler(box)
            else "ornaments" if is_decorative(text) else None)


def _outside_text(box: TextBox, extents: dict[int, tuple[float, float]]) -> bool:
    """Wholly above or below the page's other text (or on a page without any): where a
    printed page number stands, not a number among the text (a ruler's, a figure's)."""
    if box.page not in extents:
        return True
    low, high = extents[box.page]
    return box.bbox[1] >= high or box.bbox[3] <= low


_FOOTNOTE_MARKER = re.compile(r"^\s*(\d{1,2}|[*†‡§¶]{1,2})\s?(?=[^\W\d_]|http)")
FOOTNOTE_ZONE = 0.3


def _page_spans(boxes: list[TextBox]) -> dict[int, tuple[float, float, float, float]]:
    """Per page, the box around all its text."""
    spans: dict[int, tuple[float, float, float, float]] = {}
    for box in boxes:
        x0, y0, x1, y1 = spans.get(box.page, box.bbox)
        spans[box.page] = (min(x0, box.bbox[0]), min(y0, box.bbox[1]),
                           max(x1, box.bbox[2]), max(y1, box.bbox[3]))
    return spans


def _among_text(box: TextBox, spans: dict[int, tuple[float, float, float, float]]) -> bool:
    """Wholly inside the box around the page's other text."""
    span = spans.get(box.page)
    return span is not None and (span[0] <= box.bbox[0] and box.bbox[2] <= span[2]
                                 and span[1] <= box.bbox[1] and box.bbox[3] <= span[3])


def _page_extents(boxes: list[TextBox]) -> dict[int, tuple[float, float]]:
    """Per page, the lowest and highest text."""
    extents: dict[int, tuple[float, float]] = {}
    for box in boxes:
        low, high = extents.get(box.page, (box.bbox[1], box.bbox[3]))
        extents[box.page] = (min(low, box.bbox[1]), max(high, box.bbox[3]))
    return extents


def is_footnote(lines: list[TextLine], box: TextBox, body: BodyStyle,
                extents: dict[int, tuple[float, float]]) -> bool:
    """Smaller than the body, in the bottom part of the page's text, and starting with
    a note's marker (a number or *, †, ‡ set against the first word)."""
    low, high = extents[box.page]
    return (all(line.size <= body.size * 0.92 for line in lines)
            and box.bbox[3] <= low + FOOTNOTE_ZONE * (high - low)
            and bool(_FOOTNOTE_MARKER.match(lines[0].text)))


def footnotes_after_their_page(drafts: list[BlockDraft]) -> list[BlockDraft]:
    """Footnotes moved after the page's last other block, so none sits between two
    parts of a sentence that runs across columns."""
    out: list[BlockDraft] = []
    waiting: list[BlockDraft] = []
    for draft in drafts:
        if draft.kind is BlockKind.FOOTNOTE:
            waiting.append(draft)
            continue
        if waiting and draft.pages and waiting[0].pages and draft.pages[0] > waiting[0].pages[0]:
            out += waiting
            waiting = []
        out.append(draft)
    return out + waiting


_NUMBERED_ENTRY = re.compile(r"^\s*(?:\[(\d{1,4})\]|(\d{1,4})\.)\s*(?=\S)")
_AUTHOR_START = re.compile(r"^[A-Z][^\W\d_][\w'’-]*(?:,|\s+[A-Z]\.|\s+and\b|\s+et al)")
HANGING_INDENT = 4.0


def add_reference_entries(drafts: list[BlockDraft], lines: list[TextLine], box: TextBox
                          ) -> None:
    """One reference block per entry of a reference list. An entry starts at its number
    (`[12]`, `12.`) in a numbered list; else at the left edge where continuation lines
    hang indented; else at a capitalised surname after a line that ended a sentence.
    Lines before the first start continue the previous entry (a column or page break)."""
    left = min(line.bbox[0] for line in lines)
    numbered = any(_NUMBERED_ENTRY.match(line.text) for line in lines)
    last_label = next((d.label for d in reversed(drafts) if d.kind is BlockKind.REFERENCE), None)
    if last_label is None and drafts and drafts[-1].kind is BlockKind.REFERENCE:
        numbered = False  # an unnumbered list goes on: "228. Springer." is a page range
    hanging = any(line.bbox[0] - left > HANGING_INDENT for line in lines)
    entries: list[tuple[str | None, list[str]]] = []
    previous_text = drafts[-1].text if drafts and drafts[-1].kind is BlockKind.REFERENCE else ""
    for line in lines:
        number = _NUMBERED_ENTRY.match(line.text)
        if numbered:
            starts = number is not None
        elif hanging:
            starts = line.bbox[0] - left <= HANGING_INDENT / 2
        else:
            before = entries[-1][1][-1] if entries else previous_text
            starts = not before or (before.rstrip().endswith(".")
                                    and bool(_AUTHOR_START.match(line.text)))
        if starts:
            label = (number.group(1) or number.group(2)) if number else None
            entries.append((label, [line.text[number.end():] if number else line.text]))
        elif entries:
            entries[-1][1].append(line.text)
        elif drafts and drafts[-1].kind is BlockKind.REFERENCE:
            last = drafts[-1]
            drafts[-1] = attrs.evolve(last, text=clean_text([last.text, line.text]),
                                      pages=tuple(sorted({*last.pages, box.page})))
        else:
            entries.append((None, [line.text]))
    for label, texts in entries:
        text = clean_text(texts)
        if text:
            drafts.append(BlockDraft(BlockKind.REFERENCE, text=text, label=label,
                                     pages=(box.page,), bbox=box.bbox))


def _same_style(a: TextLine, b: TextLine) -> bool:
    return (a.font == b.font and abs(a.size - b.size) < 0.2 and a.bold == b.bold
            and _all_caps(a.text) == _all_caps(b.text))


def _all_caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _heading_like(line: TextLine, body: BodyStyle, *, single: bool) -> bool:
    text = " ".join(_UNMAPPED_GLYPH.sub("", line.text).split())
    words = text.split()
    if not 1 <= len(words) <= MAX_HEADING_WORDS or len(text) > 120:
        return False
    if not any(c.isalpha() for c in text) or not text[0].isalnum() or text[0].islower():
        return False
    numbered = bool(_NUMBERING.match(text))
    if text.endswith((".", ",", ";")) and not (numbered and len(words) <= 2):
        return False
    if line.size >= body.size * 1.12:
        return True
    if single and _all_caps(text) and line.size >= body.size * 0.75 and (
            numbered or label_heading(text) != "other"):
        # IEEE sets "II. SYSTEM PARAMETERS" and "REFERENCES" in small capitals, smaller
        # than the body.
        return True
    if line.size < body.size * 0.95:
        return False
    if line.bold and (line.font != body.font or not single or numbered or len(words) <= 8):
        return True
    all_caps = _all_caps(text) and len(words) <= 8
    # A slightly larger line in another face is how many journals set subsections.
    other_font = line.font != body.font and line.size >= body.size * 1.03
    return (other_font and (numbered or all_caps or single or len(words) <= 10)) or (
        all_caps and single)


def _heading_level(first: TextLine, text: str, body: BodyStyle,
                   heading_sizes: list[float]) -> int:
    numbering = _NUMBERING.match(text)
    if numbering and numbering.group(1):
        return min(2 + numbering.group(1).count("."), 6)
    if numbering:
        return 2
    if first.size >= body.size * 1.12 and first.size in heading_sizes:
        return min(heading_sizes.index(first.size) + 1, 3)
    return 3
