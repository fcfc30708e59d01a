"""Display formulas of a PDF page told from prose by what they are made of (ADR-0013).

Layout analysis hands a displayed equation back as a scatter of small boxes (a symbol,
a subscript, an operator name, the equation number), which the structure pass would
otherwise read as one-word paragraphs and headings (`### A`, `### RK`) or glue into a
sentence (`! g k ! h k`). A formula is recognised by its class, not its look on one
paper: pieces whose glyphs are mostly set in a math font or are mathematical symbols
seed it; short pieces with no prose in them (`(ai) =`, `if x otherwise`, an equation
number `(3)` at the right) that stand within a line height or so of a seed join it.
The pieces become one formula block whose text keeps every glyph, rows top to bottom
and pieces left to right in each row.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import attrs

from ..document.document import BlockDraft, BlockKind
from .geometry import bbox_union, vertical_overlap
from .structure import BodyStyle, TextBox, TextLine, clean_text, pages_of

_MATH_FONT = re.compile(
    r"^(?:CM(?:MI|SY|EX|BSY|MIB)\d|LMMath|MSBM|MSAM|EUFM|EUSM|EUEX|RSFS|STIX|XITS|TXSY|TXMI|"
    r"TXEX|PXSY|PXMI|PXEX|MTSY|MTMI|MTEX|Symbol|MT-?Extra|Euclid|Mathematica|MathematicalPi|"
    r"Asana)|Math", re.IGNORECASE)
_EQUATION_NUMBER = re.compile(
    r"^\(\s*(?:(?:[A-Z]\.?)?\d{1,3}(?:\.\d{1,3})*[a-z]?|[ivx]{1,5})\s*\)$")
_PROSE_WORD = re.compile(r"[^\W\d_]{4,}")
_WORD = re.compile(r"[^\W\d_]{3,}")
_HYPHENATED_END = re.compile(r"[^\W\d_]-$")
SEED_SHARE = 0.5
"""A piece with at least this share of math glyphs is a formula's seed."""
PIECE_CHARS = 40
"""A piece longer than this is not a formula's loose part unless it is a seed."""
SEED_CHARS = 300
ROW_OVERLAP = 0.3
"""A subscript or superscript overlaps its row by this share of its height; the two
halves of a fraction do not overlap at all."""
REACH_LINES = 1.6
"""How far, in body line heights, a loose piece may stand from the formula it joins."""


def is_math_font(font_name: str) -> bool:
    """A font that sets mathematics by its name (subset prefix ignored): TeX's CMMI, CMSY,
    CMEX, AMS's MSBM, STIX and Cambria Math, Symbol, MT Extra, ..."""
    return bool(_MATH_FONT.search(font_name.split("+", 1)[-1]))


def is_math_symbol(char: str) -> bool:
    """A mathematical symbol (operators, relations, arrows, math alphanumerics)."""
    return unicodedata.category(char) == "Sm" or "\U0001d400" <= char <= "\U0001d7ff"


def is_equation_number(text: str) -> bool:
    """An equation's number as set at the margin: `(3)`, `(2.14)`, `(A.1)`, `(4b)`."""
    return bool(_EQUATION_NUMBER.match(text.strip()))


def _share(box: TextBox) -> float:
    return sum(line.math for line in box.lines) / max(1, box.chars)


def _is_seed(box: TextBox) -> bool:
    return (box.chars <= SEED_CHARS and _share(box) >= SEED_SHARE
            and len(_PROSE_WORD.findall(box.text)) <= max(2, box.chars // 20))


def _is_loose_piece(box: TextBox) -> bool:
    text = box.text
    if is_equation_number(text):
        return True
    # One word is an operator's or a condition's (`max`, `otherwise`); two are prose, as
    # is a word broken at the line's end.
    return (len(text) <= PIECE_CHARS and len(_WORD.findall(text)) <= 1
            and not _HYPHENATED_END.search(text))


@attrs.frozen
class Formula:
    """A displayed formula: the boxes it was read from and its text, row by row."""

    page: int
    members: tuple[int, ...]
    """Indexes of its boxes in the page's box list."""
    text: str
    label: str | None
    bbox: tuple[float, float, float, float]

    def draft(self) -> BlockDraft:
        return BlockDraft(BlockKind.FORMULA, text=self.text, label=self.label,
                          pages=(self.page,), bbox=self.bbox)


def find_formulas(boxes: Sequence[TextBox], line_height: float) -> list[Formula]:
    """Formulas among consecutive boxes (reading order) of one page: runs of seeds and
    loose pieces, each grown from its seeds to the pieces within reach."""
    formulas: list[Formula] = []
    index = 0
    while index < len(boxes):
        if not (_is_seed(boxes[index]) or _is_loose_piece(boxes[index])):
            index += 1
            continue
        end = index
        while (end < len(boxes) and boxes[end].page == boxes[index].page
               and (_is_seed(boxes[end]) or _is_loose_piece(boxes[end]))):
            end += 1
        formulas.extend(_grown(boxes, range(index, end), line_height))
        index = end
    return _numbers_attached(boxes, formulas)


def _grown(boxes: Sequence[TextBox], run: range, line_height: float) -> list[Formula]:
    # An equation number with a piece beside it on its row seeds a formula even when the
    # formula is set in the text font (`sim(q, p) = E(q)E(p). (1)`).
    seeds = [i for i in run if _is_seed(boxes[i]) or (
        is_equation_number(boxes[i].text)
        and any(j != i and _same_row(boxes[i].bbox, boxes[j].bbox)
                and boxes[j].bbox[2] <= boxes[i].bbox[0] for j in run))]
    if not seeds:
        return []
    taken = set(seeds)
    reach = REACH_LINES * line_height
    grew = True
    while grew:
        grew = False
        for i in run:
            if i not in taken and any(_near(boxes[i].bbox, boxes[j].bbox, reach)
                                      for j in taken):
                taken.add(i)
                grew = True
    # A lone symbol that stands alone (a bullet, an arrow in a figure) is not a formula
    # unless it carries two or more glyphs or joined other pieces.
    if len(taken) == 1 and boxes[seeds[0]].chars < 2:
        return []
    members = tuple(sorted(taken))
    return [_formula(boxes, members)]


def _same_row(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
              ) -> bool:
    middle = (a[1] + a[3]) / 2
    return b[1] <= middle <= b[3]


def _numbers_attached(boxes: Sequence[TextBox], formulas: list[Formula]) -> list[Formula]:
    """Equation numbers left alone (another box stood between them and their formula in
    reading order) joined to the formula whose rows they stand beside, to its right."""
    taken = {i for formula in formulas for i in formula.members}
    out = list(formulas)
    for i, box in enumerate(boxes):
        if i in taken or not is_equation_number(box.text):
            continue
        for k, formula in enumerate(out):
            if _same_row(box.bbox, formula.bbox) and box.bbox[0] >= formula.bbox[2] - 1:
                out[k] = _formula(boxes, tuple(sorted((*formula.members, i))))
                taken.add(i)
                break
    return out


def _near(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
          reach: float) -> bool:
    vertical = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return vertical <= reach


def _formula(boxes: Sequence[TextBox], members: tuple[int, ...]) -> Formula:
    lines = [line for i in members for line in boxes[i].lines]
    numbers = [line for line in lines if is_equation_number(line.text)]
    rows = _rows([line for line in lines if line not in numbers] or lines)
    texts = [clean_text([line.text for line in row]) for row in rows]
    label = None
    if len(numbers) == 1 and len(texts) >= 1:
        label = numbers[0].text.strip().strip("()").strip()
    elif numbers:
        # Several numbered equations set one under the other: each number ends its row.
        texts = [clean_text([line.text for line in row]) for row in _rows(lines)]
    bbox = bbox_union(boxes[i].bbox for i in members)
    return Formula(page=boxes[members[0]].page, members=members,
                   text="\n".join(t for t in texts if t), label=label, bbox=bbox)


def _rows(lines: list[TextLine]) -> list[list[TextLine]]:
    """Lines grouped into rows that overlap vertically (a subscript stays on its row),
    top to bottom, each row left to right."""
    rows: list[tuple[float, float, list[TextLine]]] = []
    for line in sorted(lines, key=lambda ln: (-ln.bbox[3], ln.bbox[0], ln.bbox[1])):
        low, high = line.bbox[1], line.bbox[3]
        if rows and min(high, rows[-1][1]) - max(low, rows[-1][0]) >= ROW_OVERLAP * min(
                high - low, rows[-1][1] - rows[-1][0]):
            row_low, row_high, members = rows[-1]
            members.append(line)
            rows[-1] = (min(row_low, low), max(row_high, high), members)
        else:
            rows.append((low, high, [line]))
    return [sorted(members, key=lambda ln: (ln.bbox[0], -ln.bbox[3])) for _, _, members in rows]


def lift_formulas(boxes: Sequence[TextBox]) -> tuple[list[TextBox], list[BlockDraft]]:
    """The boxes without those that became formulas, and the formulas' blocks, page by
    page. Boxes must come page by page, as the reader yields them."""
    line_height = 1.2 * BodyStyle.of(list(boxes)).size
    kept: list[TextBox] = []
    formulas: list[BlockDraft] = []
    for page in pages_of(boxes):
        page_boxes = [part for box in page for part in split_display_lines(box)]
        found = find_formulas(page_boxes, line_height)
        taken = {i for formula in found for i in formula.members}
        kept += [box for i, box in enumerate(page_boxes) if i not in taken]
        formulas += [formula.draft() for formula in found]
    return kept, formulas


DISPLAY_INDENT = 0.1
"""A display line stands in from both sides of its box by this share of the box's width."""


def split_display_lines(box: TextBox) -> list[TextBox]:
    """A box cut around the lines in it that are displayed formulas: mostly math glyphs,
    alone on their row (an inline formula's raised or lowered pieces share a row with
    prose) and set in from both sides of the box."""
    if len(box.lines) < 2:
        return [box]
    width = box.bbox[2] - box.bbox[0]
    display = [line.chars >= 3 and line.math >= SEED_SHARE * line.chars
               and line.bbox[0] - box.bbox[0] >= DISPLAY_INDENT * width
               and box.bbox[2] - line.bbox[2] >= DISPLAY_INDENT * width
               and not any(other is not line and _lines_share_row(line, other)
                           for other in box.lines)
               for line in box.lines]
    if not any(display) or all(display):
        return [box]
    parts: list[list[TextLine]] = []
    for line, shown in zip(box.lines, display, strict=True):
        if parts and display[box.lines.index(parts[-1][-1])] == shown:
            parts[-1].append(line)
        else:
            parts.append([line])
    return [TextBox(page=box.page, lines=tuple(part), bbox=bbox_union(x.bbox for x in part))
            for part in parts]


def _lines_share_row(a: TextLine, b: TextLine) -> bool:
    return vertical_overlap(a.bbox, b.bbox) > ROW_OVERLAP
