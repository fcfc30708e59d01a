"""pdfminer's grouping of glyphs into text lines, as one loop over plain numbers.

pdfminer decides whether each glyph continues the line of the one before through six
method calls (overlaps and distances) and adds it through two more (word-space check,
box growth); per glyph, that is a large share of layout analysis. The same tests, on
the same attributes, in the same order, are written out here, and a line's box is taken
once from its glyphs' extremes (what growing it glyph by glyph gives), so the lines are
identical to pdfminer's. Vertical writing (`detect_vertical`) keeps pdfminer's code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pdfminer.layout import LAParams, LTAnno, LTChar, LTTextLine, LTTextLineHorizontal

INF = float("inf")


class GlyphLine(LTTextLineHorizontal):
    """A horizontal line whose glyphs are known to be glyphs and spaces: no per-glyph
    `analyze` call (a no-op for both) and its text joined directly."""

    def analyze(self, laparams: LAParams) -> None:
        self._objs.append(LTAnno("\n"))

    def get_text(self) -> str:
        return "".join([obj._text for obj in self._objs])


def glyph_line(chars: list[LTChar], word_margin: float) -> GlyphLine:
    """A line of `chars`, with a space wherever pdfminer's `add` would insert one."""
    line = GlyphLine(word_margin)
    objs: list[Any] = line._objs
    previous = INF
    for char in chars:
        if word_margin:
            margin = word_margin * max(char.width, char.height)
            if previous < char.x0 - margin:
                objs.append(LTAnno(" "))
        previous = char.x1
        objs.append(char)
    line._x1 = previous
    line.set_bbox((min(INF, *(c.x0 for c in chars)), min(INF, *(c.y0 for c in chars)),
                   max(-INF, *(c.x1 for c in chars)), max(-INF, *(c.y1 for c in chars))))
    return line


class LineGrouping:
    """Mixin for an `LTLayoutContainer`: `group_objects` as one loop."""

    def group_objects(self, laparams: LAParams, objs: Iterable[LTChar]
                      ) -> Iterator[LTTextLine]:
        if laparams.detect_vertical:
            yield from super().group_objects(laparams, objs)  # type: ignore[misc]
            return
        overlap, reach, word_margin = (laparams.line_overlap, laparams.char_margin,
                                       laparams.word_margin)
        line: list[LTChar] | None = None
        obj0: LTChar | None = None
        for obj1 in objs:
            if obj0 is not None:
                # halign in pdfminer: vertical overlap, enough of it, horizontally close.
                halign = False
                if obj1.y0 <= obj0.y1 and obj0.y0 <= obj1.y1 and (
                        min(obj0.height, obj1.height) * overlap
                        < min(abs(obj0.y0 - obj1.y1), abs(obj0.y1 - obj1.y0))):
                    distance = (0 if obj1.x0 <= obj0.x1 and obj0.x0 <= obj1.x1
                                else min(abs(obj0.x0 - obj1.x1), abs(obj0.x1 - obj1.x0)))
                    halign = distance < max(obj0.width, obj1.width) * reach
                if halign and line is not None:
                    line.append(obj1)
                elif line is not None:
                    yield glyph_line(line, word_margin)
                    line = None
                elif halign:
                    line = [obj0, obj1]
                else:
                    yield glyph_line([obj0], word_margin)
            obj0 = obj1
        if line is None:
            assert obj0 is not None
            line = [obj0]
        yield glyph_line(line, word_margin)
