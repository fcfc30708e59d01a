"""pdfminer's grouping of glyphs into text lines, over columns of numbers.

pdfminer decides whether each glyph continues the line of the one before through six
method calls (overlaps and distances) and adds it through two more (word-space check,
box growth); per glyph, that is a large share of layout analysis. The same tests, on
the same attributes, in the same order, are taken here over arrays of the page's glyph
boxes (numpy, float64, the same IEEE operations as Python's floats), so the line breaks,
word spaces and line boxes are pdfminer's; only the lines and spaces are then made as
objects, not each glyph's step. A page with a non-finite coordinate, where Python's
`min` and numpy's differ on NaN, goes glyph by glyph. Vertical writing
(`detect_vertical`) keeps pdfminer's code.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from pdfminer.layout import (
    LAParams,
    LTAnno,
    LTChar,
    LTTextBox,
    LTTextBoxHorizontal,
    LTTextLine,
    LTTextLineHorizontal,
)
from pdfminer.utils import uniq

from .line_neighbours import line_neighbours

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


def _earlier_min(a: Any, b: Any) -> Any:
    """Python's `min(a, b)` element-wise: `b` only where it is smaller."""
    return np.where(b < a, b, a)


def _earlier_max(a: Any, b: Any) -> Any:
    return np.where(b > a, b, a)


def line_breaks(boxes: Any, overlap: float, reach: float) -> Any:
    """Whether each glyph after the first starts a new line (pdfminer's `halign` with
    the glyph before it is false), for an (n, 4) array of glyph boxes x0, y0, x1, y1."""
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    width, height = x1 - x0, y1 - y0
    ax0, ay0, ax1, ay1, aw, ah = x0[:-1], y0[:-1], x1[:-1], y1[:-1], width[:-1], height[:-1]
    bx0, by0, bx1, by1, bw, bh = x0[1:], y0[1:], x1[1:], y1[1:], width[1:], height[1:]
    overlapping = (by0 <= ay1) & (ay0 <= by1)
    enough = (_earlier_min(ah, bh) * overlap
              < _earlier_min(np.abs(ay0 - by1), np.abs(ay1 - by0)))
    touching = (bx0 <= ax1) & (ax0 <= bx1)
    distance = np.where(touching, 0.0, _earlier_min(np.abs(ax0 - bx1), np.abs(ax1 - bx0)))
    close = distance < _earlier_max(aw, bw) * reach
    return ~(overlapping & enough & close)


def word_spaces(boxes: Any, word_margin: float) -> Any:
    """Whether pdfminer's `add` puts a space before each glyph after the first, were the
    two on one line: the glyph before ends short of this one's start by the margin."""
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    width, height = x1[1:] - x0[1:], y1[1:] - y0[1:]
    margin = word_margin * _earlier_max(width, height)
    return x1[:-1] < x0[1:] - margin


def glyph_lines(chars: Sequence[LTChar], laparams: LAParams, boxes: Any = None
                ) -> Iterator[GlyphLine]:
    """pdfminer's horizontal lines of `chars` (in drawing order), from their boxes
    (`boxes`, (n, 4), when the reader has them already)."""
    count = len(chars)
    if not count:
        return
    if boxes is None:
        boxes = np.fromiter(itertools.chain.from_iterable([c.bbox for c in chars]),
                            dtype=np.float64, count=4 * count).reshape(count, 4)
    word_margin = laparams.word_margin
    if not np.isfinite(boxes).all():
        yield from _lines_glyph_by_glyph(chars, laparams)
        return
    breaks = line_breaks(boxes, laparams.line_overlap, laparams.char_margin)
    starts = np.concatenate(([0], np.flatnonzero(breaks) + 1))
    ends = np.append(starts[1:], count)
    spaces = (np.flatnonzero(word_spaces(boxes, word_margin) & ~breaks) + 1
              if word_margin else np.empty(0, dtype=np.intp))
    # All glyphs with the spaces between them, once; each line is a slice of it.
    stream: list[Any] = []
    done = 0
    for index in spaces.tolist():
        stream += chars[done:index]
        stream.append(LTAnno(" "))
        done = index
    stream += chars[done:]
    # A glyph's place in the stream: its index plus the spaces at or before it.
    before = np.searchsorted(spaces, starts, side="left")
    through = np.searchsorted(spaces, ends - 1, side="right")
    low = np.minimum.reduceat(boxes[:, :2], starts, axis=0).tolist()
    high = np.maximum.reduceat(boxes[:, 2:], starts, axis=0).tolist()
    last_x1 = boxes[ends - 1, 2].tolist()
    for start, end, first, last, (lx, ly), (hx, hy), right in zip(
            starts.tolist(), ends.tolist(), before.tolist(), through.tolist(), low, high,
            last_x1, strict=True):
        line = GlyphLine(word_margin)
        line._objs = stream[start + first:end + last]
        line._x1 = right
        line.set_bbox((lx, ly, hx, hy))
        yield line


def _lines_glyph_by_glyph(objs: Iterable[LTChar], laparams: LAParams) -> Iterator[GlyphLine]:
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


class LineGrouping:
    """Mixin for an `LTLayoutContainer`: `group_objects` over the glyphs' boxes."""

    glyph_boxes: tuple[list[LTChar], Any] | None = None
    """The container's glyphs and their boxes as an (n, 4) array, where the reader
    made them as arrays (the PDFium engine); used while the glyphs are the same."""

    def group_objects(self, laparams: LAParams, objs: Iterable[LTChar]
                      ) -> Iterator[LTTextLine]:
        if laparams.detect_vertical:
            yield from super().group_objects(laparams, objs)  # type: ignore[misc]
            return
        chars = objs if isinstance(objs, list) else list(objs)
        known, boxes = self.glyph_boxes or ((), None)
        if len(known) != len(chars) or not all(map(operator.is_, chars, known)):
            boxes = None
        yield from glyph_lines(chars, laparams, boxes)

    def group_textlines(self, laparams: LAParams, lines: Iterable[LTTextLine]
                        ) -> Iterator[LTTextBox]:
        """pdfminer's `group_textlines`, its neighbours found over arrays
        (`line_neighbours`) where that finds what its plane finds."""
        lines = lines if isinstance(lines, list) else list(lines)
        found = line_neighbours(self.bbox, lines, laparams.line_margin)  # type: ignore[attr-defined]
        if found is None:
            yield from super().group_textlines(laparams, lines)  # type: ignore[misc]
            return
        # From here as pdfminer's, line for line.
        boxes: dict[LTTextLine, LTTextBox] = {}
        for line, numbers in zip(lines, found, strict=True):
            members = [line]
            for number in numbers:
                obj1 = lines[number]
                members.append(obj1)
                if obj1 in boxes:
                    members.extend(boxes.pop(obj1))
            box = LTTextBoxHorizontal()
            for obj in uniq(members):
                box.add(obj)
                boxes[obj] = box
        done = set()
        for line in lines:
            if line not in boxes:
                continue
            box = boxes[line]
            if box in done:
                continue
            done.add(box)
            if not box.is_empty():
                yield box
