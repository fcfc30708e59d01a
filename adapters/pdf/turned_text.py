"""Text turned against the page (margin stamps) read as lines along its own direction.

pdfminer's layout analysis groups glyphs into horizontal lines, so a stamp set at 90°
comes out one glyph per line (`1 2 0 2 / n u J`). These glyphs are read again here: by
their writing direction, in columns across it, in order along it, with a space where
the gap along the direction is wider than a fifth of the type size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from pdfminer.layout import LTChar

from ...domain.pdf.structure import TextBox, TextLine

_Glyph = tuple[float, float, float, LTChar]
"""Start and end along the writing direction, type size, the glyph."""

SPACE_GAP = 0.2
"""A gap along the writing direction of this share of the type size is a word space."""
LINE_GAP = 5.0
"""A gap of this many type sizes ends a stamp: two stamps in one column stay apart, but
the wide gaps inside arXiv's (`arXiv:2302.07302v1  [cs.HC]  14 Feb 2023`) do not cut it."""


def turned_lines(chars: Iterable[LTChar], page: int) -> Iterator[TextBox]:
    """Each run of turned glyphs as a one-line box, in its own reading order."""
    by_direction: dict[int, list[tuple[float, _Glyph]]] = {}
    for char in chars:
        a, b = char.matrix[0], char.matrix[1]
        norm = math.hypot(a, b)
        if not norm:
            continue
        ux, uy = a / norm, b / norm
        along = [x * ux + y * uy for x in (char.x0, char.x1) for y in (char.y0, char.y1)]
        across = (char.y0 + char.y1) / 2 * ux - (char.x0 + char.x1) / 2 * uy
        by_direction.setdefault(round(math.degrees(math.atan2(uy, ux))), []).append(
            (across, (min(along), max(along), char.size, char)))
    for placed in by_direction.values():
        # Glyphs of one run stand within half the type size of each other across it.
        placed.sort(key=lambda p: p[0])
        column: list[_Glyph] = []
        last = float("-inf")
        for across, glyph in placed:
            if column and across - last > 0.5 * glyph[2]:
                yield from _runs(column, page)
                column = []
            column.append(glyph)
            last = across
        if column:
            yield from _runs(column, page)


def _runs(glyphs: list[_Glyph], page: int) -> Iterator[TextBox]:
    glyphs.sort(key=lambda g: g[0])
    piece: list[_Glyph] = []
    for glyph in glyphs:
        if piece and glyph[0] - piece[-1][1] > LINE_GAP * glyph[2]:
            yield _box(piece, page)
            piece = []
        piece.append(glyph)
    if piece:
        yield _box(piece, page)


def _box(piece: list[_Glyph], page: int) -> TextBox:
    text = ""
    for i, (start, _, size, char) in enumerate(piece):
        glyph = char.get_text()
        if i and start - piece[i - 1][1] > SPACE_GAP * size and not text.endswith(" ") \
                and glyph != " ":
            text += " "
        text += glyph
    chars = [g[3] for g in piece]
    bbox = (min(c.x0 for c in chars), min(c.y0 for c in chars),
            max(c.x1 for c in chars), max(c.y1 for c in chars))
    line = TextLine(text=" ".join(text.split()), size=round(piece[0][2], 1),
                    font=chars[0].fontname, bold=False, chars=len(chars), bbox=bbox)
    return TextBox(page=page, lines=(line,), bbox=bbox)


def in_margin(stamp: TextBox, upright: Iterable[TextBox]) -> bool:
    """Whether a turned line stands beside the page's upright text, not among it (a
    rotated axis label or table header is inside the text's span)."""
    spans = [box.bbox for box in upright]
    if not spans:
        return True
    left, right = min(b[0] for b in spans), max(b[2] for b in spans)
    return stamp.bbox[2] <= left + 1 or stamp.bbox[0] >= right - 1
