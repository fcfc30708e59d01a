"""Pages read by PDFium as pdfminer's layout objects, for the same layout code (ADR-0042).

With the `pdfium` extra installed, PDFium (C++) interprets the content streams and
decodes the fonts: each character's text, box, font and render mode comes out of its
text page, and each straight line or rectangle out of its path objects. They are made
into the glyphs (`LTChar`), lines and rectangles pdfminer's interpreter would have made,
in pdfminer's page coordinates (the media box's corner at the origin, /Rotate applied),
and handed to the same layout analysis (`StablePage`), so everything after it (reading
order, headings, tables, formulas, turned text, garbled-font checks) is shared by both
engines. PDFium's own inferred spaces and line breaks are left out: spaces come from
the glyph gaps, as with pdfminer.
"""

from __future__ import annotations

import collections
import ctypes
import itertools
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
from pdfminer.layout import LTChar, LTLine, LTRect

from ...domain.errors import ErrorKind, SheafError
from .content_budget import ContentBudget
from .font_encoding import CORPORATE_USE
from .glyph_boxes import GlyphChar
from .layout_parameters import INVISIBLE_RENDER_MODE, LAYOUT
from .pdfium_text import PDFIUM_LOCK
from .stable_grouping import StablePage
from .stream_bounds import bound_streams

try:
    import pypdfium2
    import pypdfium2.raw as pdfium_c
except ImportError:  # pragma: no cover - exercised when the extra is absent
    pypdfium2 = None
    pdfium_c = None

Matrix = tuple[float, float, float, float, float, float]

_FONT_NAME_BYTES = 256
_PATH = 2
_FORM = 5
_MOVETO, _LINETO = 2, 0  # FPDF_SEGMENT_MOVETO, FPDF_SEGMENT_LINETO
MAX_PATH_SEGMENTS = 16
"""Paths with more segments than this are drawings (curves, charts), not rules."""
MAX_PAGE_PATHS = 20_000
"""Path objects looked at per page; hatching and plots beyond it add no rules."""
_GENERATED_CODES = [ord(c) for c in " \r\n\x02"]


def _untyped_function(function: Any, returns: Any) -> Any:
    """`function` (a pypdfium2 binding) without declared argument types, returning an
    int (a text object's identity is then an int, not a ctypes pointer made per
    character). Each argument converted through declared types cost more than the call
    itself (576 against 171 ns a character for the text object), so callers pass
    pointers as `c_void_p` and C ints as Python ints, which is what ctypes does with
    an undeclared argument."""
    prototype = ctypes.CFUNCTYPE(returns)
    return prototype(ctypes.cast(function, ctypes.c_void_p).value)


def _rotation_matrix(rotate: int, box: tuple[float, float, float, float]) -> Matrix:
    """pdfminer's page matrix: the media box's corner to the origin, /Rotate applied."""
    x0, y0, x1, y1 = box
    if rotate == 90:
        return (0, -1, 1, 0, -y0, x1)
    if rotate == 180:
        return (-1, 0, 0, -1, x1, y1)
    if rotate == 270:
        return (0, 1, -1, 0, y1, -x0)
    return (1, 0, 0, 1, -x0, -y0)


def _multiply(m1: Matrix, m0: Matrix) -> Matrix:
    """m1 then m0 (pdfminer's `mult_matrix` convention)."""
    (a1, b1, c1, d1, e1, f1), (a0, b0, c0, d0, e0, f0) = m1, m0
    return (a0 * a1 + c0 * b1, b0 * a1 + d0 * b1, a0 * c1 + c0 * d1, b0 * c1 + d0 * d1,
            a0 * e1 + c0 * f1 + e0, b0 * e1 + d0 * f1 + f0)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def _box(m: Matrix, x0: float, y0: float, x1: float, y1: float
         ) -> tuple[float, float, float, float]:
    corners = [_apply(m, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return (min(xs), min(ys), max(xs), max(ys))


class PdfiumLayoutPages:
    """The document's pages as laid-out pdfminer pages, one at a time."""

    def __init__(self, data: bytes, budget: ContentBudget, max_pages: int) -> None:
        if pypdfium2 is None:
            raise RuntimeError("pypdfium2 is not installed (the pdfium extra)")
        self._budget = budget
        self._max_pages = max_pages
        # PDFium inflates what a page needs in C++, outside the budget's counting: the
        # streams it can reach are decoded under the budget first.
        bound_streams(data, budget, max_pages)
        try:
            with PDFIUM_LOCK:
                self._document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError as exc:
            raise SheafError(ErrorKind.CORRUPT, f"PDFium cannot open the file: {exc}") from None
        # (FPDF_TEXTPAGE, int) -> FPDF_PAGEOBJECT; (FPDF_TEXTPAGE, int, FS_RECTF*) ->
        # FPDF_BOOL; (FPDF_TEXTPAGE, int) -> int.
        self._text_object = _untyped_function(pdfium_c.FPDFText_GetTextObject, ctypes.c_size_t)
        self._loose_box = _untyped_function(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int)
        self._is_generated = _untyped_function(pdfium_c.FPDFText_IsGenerated, ctypes.c_int)
        # Once per text object: (FPDF_PAGEOBJECT, float*) -> FPDF_BOOL; (FPDF_TEXTPAGE,
        # int, FS_MATRIX*) -> FPDF_BOOL; (FPDF_PAGEOBJECT) -> int; (FPDF_PAGEOBJECT) ->
        # FPDF_FONT. Their out-parameters are reused.
        self._get_font_size = _untyped_function(pdfium_c.FPDFTextObj_GetFontSize, ctypes.c_int)
        self._get_matrix = _untyped_function(pdfium_c.FPDFText_GetMatrix, ctypes.c_int)
        self._get_render_mode = _untyped_function(pdfium_c.FPDFTextObj_GetTextRenderMode,
                                                  ctypes.c_int)
        self._get_font = _untyped_function(pdfium_c.FPDFTextObj_GetFont, ctypes.c_size_t)
        self._font_size = ctypes.c_float()
        self._matrix = pdfium_c.FS_MATRIX()
        self._font_size_at = ctypes.byref(self._font_size)
        self._matrix_at = ctypes.byref(self._matrix)
        self._fonts: dict[int, str] = {}

    def close(self) -> None:
        with PDFIUM_LOCK:
            self._document.close()

    def __iter__(self) -> Iterator[StablePage]:
        for index in range(len(self._document)):
            number = index + 1
            if number > self._max_pages:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"more than {self._max_pages} pages (the page limit)")
            self._budget.start_page(number)
            with PDFIUM_LOCK:
                page = self._document[index]
                try:
                    layout = self._page(page, number)
                finally:
                    page.close()
            layout.analyze(LAYOUT)
            self._budget.check_time()
            yield layout

    def _page(self, page: Any, number: int) -> StablePage:
        """The page's glyphs and shapes, not yet laid out."""
        raw = page.raw
        # Font handles are addresses, which PDFium may reuse once a page is closed.
        self._fonts.clear()
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        if not pdfium_c.FPDFPage_GetMediaBox(raw, left, bottom, right, top):
            left.value, bottom.value = 0.0, 0.0
            right.value, top.value = page.get_width(), page.get_height()
        media = (left.value, bottom.value, right.value, top.value)
        rotate = (pdfium_c.FPDFPage_GetRotation(raw) % 4) * 90
        to_page = _rotation_matrix(rotate, media)
        width, height = abs(media[2] - media[0]), abs(media[3] - media[1])
        if rotate in (90, 270):
            width, height = height, width
        layout = StablePage(number, (0, 0, width, height), rotate)
        for shape in self._shapes(raw, to_page):
            layout.add(shape)
        textpage = page.get_textpage()
        try:
            chars, boxes = self._chars(textpage, to_page)
            layout._objs.extend(chars)
            layout.glyph_boxes = (chars, boxes)
        finally:
            textpage.close()
        return layout

    def _chars(self, textpage: Any, to_page: Matrix) -> tuple[list[LTChar], Any]:
        """The page's glyphs in drawing order, with their boxes ((n, 4), or None
        where they were put in another order). PDFium puts a right-to-left run in
        logical order; pdfminer (and the line reading after it) has a producer's runs
        in the order drawn, which is left to right, so such runs are put back by
        position."""
        owners, chars, boxes = self._glyphs(textpage, to_page)
        if not _RIGHT_TO_LEFT.search("".join([c._text for c in chars])):
            return chars, boxes
        ordered: list[LTChar] = []
        run: list[LTChar] = []
        run_object = 0
        for address, char in zip(owners, chars, strict=True):
            if address != run_object:
                ordered.extend(_visual(run))
                run = []
                run_object = address
            run.append(char)
        ordered.extend(_visual(run))
        return ordered, None

    def _glyphs(self, textpage: Any, to_page: Matrix
                ) -> tuple[list[int], list[LTChar], Any]:
        """The page's glyphs, the text object of each and their boxes. PDFium is asked per character
        for the text object and the loose box only (each box written straight into an
        array); the boxes are then worked out over the arrays, and the glyph objects
        made in one pass."""
        raw = textpage.raw
        count = pdfium_c.FPDFText_CountChars(raw)
        if count <= 0:
            return [], [], None
        self._budget.drawn_many(count)
        units = np.zeros(2 * count + 1, dtype=np.uint16)
        written = pdfium_c.FPDFText_GetText(raw, 0, count, units.ctypes.data_as(
            ctypes.POINTER(ctypes.c_ushort)))
        # A character beyond the Basic Multilingual Plane takes two UTF-16 units, and
        # then the text no longer lines up with the character indices.
        code_array = (units[:count].astype(np.int64) if written == count + 1 else
                      np.array([pdfium_c.FPDFText_GetUnicode(raw, index)
                                for index in range(count)], dtype=np.int64))
        texts = list(map(chr, code_array.tolist()))
        for index in np.flatnonzero((code_array >= 0xE000) & (code_array <= 0xF8FF)).tolist():
            # PDFium gives Adobe's corporate-use glyphs (Symbol's sans-serif ©, a
            # font's small capitals) their private-use points; they are ordinary
            # characters, as the pdfminer engine reads them.
            texts[index] = CORPORATE_USE.get(texts[index], texts[index])
        handle = ctypes.c_void_p(ctypes.cast(raw, ctypes.c_void_p).value)
        candidates = np.ones(count, dtype=bool)
        spaces = np.flatnonzero(np.isin(code_array, _GENERATED_CODES))
        if len(spaces):
            generated = np.fromiter(map(self._is_generated, itertools.repeat(handle),
                                        spaces.tolist()), dtype=np.int64, count=len(spaces))
            candidates[spaces[generated != 0]] = False
        # Each character's text object (0 for none), PDFium called from map's loop in C;
        # then each object's style once, at its first character.
        objects = np.fromiter(map(self._text_object, itertools.repeat(handle, count),
                                  range(count)), dtype=np.uint64, count=count)
        candidates &= objects != 0
        indices = np.flatnonzero(candidates)
        addresses, first, which = np.unique(objects[indices], return_index=True,
                                            return_inverse=True)
        table: list[tuple[str, float, bool, Matrix, bool, bool]] = []
        numbers = np.full(len(addresses), -1, dtype=np.intp)
        for slot, (address, index) in enumerate(zip(addresses.tolist(),
                                                     indices[first].tolist(), strict=True)):
            style = self._style(handle, index, address, to_page)
            if style is not None:
                numbers[slot] = len(table)
                table.append(style)
        style_of = numbers[which]
        usable = style_of >= 0
        kept_array, style_of = indices[usable], style_of[usable]
        if not len(kept_array):
            return [], [], None
        kept = kept_array.tolist()
        owners = objects[kept_array].tolist()
        # The loose boxes written by PDFium straight into consecutive rows.
        # FS_RECTF: left, top, right, bottom; each row passed as the array and its
        # offset (`byref` costs less than a pointer object made per row).
        rects = np.zeros((len(kept), 4), dtype=np.float32)
        cells = (ctypes.c_float * rects.size).from_buffer(rects)
        collections.deque(map(self._loose_box, itertools.repeat(handle, len(kept)), kept,
                              map(ctypes.byref, itertools.repeat(cells),
                                  range(0, rects.nbytes, rects.strides[0]))), maxlen=0)
        del cells  # the array's buffer is released before the array is read on
        boxes = self._boxes(rects.astype(np.float64), style_of, table, to_page)
        x0s, y0s, x1s, y1s = boxes.T.tolist()
        widths, heights = (boxes[:, 2] - boxes[:, 0]).tolist(), (boxes[:, 3] - boxes[:, 1]).tolist()
        new = GlyphChar.__new__
        chars: list[LTChar] = []
        append = chars.append
        for index, which, x0, y0, x1, y1, width, height in zip(
                kept, style_of.tolist(), x0s, y0s, x1s, y1s, widths, heights, strict=True):
            fontname, _, invisible, matrix, upright, _ = table[which]  # type: ignore[misc]
            char = new(GlyphChar)
            char._text = texts[index]
            char.matrix = (matrix[0], matrix[1], matrix[2], matrix[3], x0, y0)
            char.fontname = fontname
            char.ncs = None
            char.graphicstate = None
            char.adv = width
            char.upright = upright
            char.x0, char.y0, char.x1, char.y1 = x0, y0, x1, y1
            char.width, char.height = width, height
            char.bbox = (x0, y0, x1, y1)
            char.size = height
            if invisible:
                char.sheaf_invisible = True  # type: ignore[attr-defined]
            append(char)
        return owners, chars, boxes

    @staticmethod
    def _boxes(rects: Any, style_of: Any,
               table: list[tuple[str, float, bool, Matrix, bool, bool] | None],
               to_page: Matrix) -> Any:
        """Each glyph's box in pdfminer's page space, (n, 4): x0, y0, x1, y1, from
        PDFium's loose boxes (left, top, right, bottom), with the same floating-point
        operations as glyph by glyph: the advance box from the font's descent up by the
        type size (PDFium's loose box ends at the font's ascent instead)."""
        sizes = np.array([s[1] for s in table], dtype=np.float64)[style_of]  # type: ignore[index]
        up = np.array([s[3][3] > 0 for s in table], dtype=bool)[style_of]  # type: ignore[index]
        plain = np.array([s[5] for s in table], dtype=bool)[style_of]  # type: ignore[index]
        left, top, right, bottom = rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3]
        if to_page[:4] == (1, 0, 0, 1):  # the usual page: only moved, if at all
            dx, dy = float(to_page[4]), float(to_page[5])
            x0, y0, x1, y1 = left + dx, bottom + dy, right + dx, top + dy
        else:
            a, b, c, d, e, f = (float(v) for v in to_page)
            x0, y0 = a * left + c * bottom + e, b * left + d * bottom + f
            x1, y1 = a * right + c * top + e, b * right + d * top + f
        x0, x1 = np.where(x1 < x0, x1, x0), np.where(x1 < x0, x0, x1)
        y0, y1 = np.where(y1 < y0, y1, y0), np.where(y1 < y0, y0, y1)
        y0, y1 = np.where(up, y0, y1 - sizes), np.where(up, y0 + sizes, y1)
        boxes = np.stack((x0, y0, x1, y1), axis=1)
        # Turned or skewed text (rare) glyph by glyph, as its corners go.
        for row in np.flatnonzero(~plain).tolist():
            _, size, _, matrix, _, _ = table[style_of[row]]  # type: ignore[misc]
            left_side, top_side, right_side, bottom_side = rects[row].tolist()
            bx0, by0, bx1, by1 = _box(to_page, left_side, bottom_side, right_side, top_side)
            if matrix[0] == 0 and matrix[3] == 0:  # a quarter turn: up is along x
                if matrix[2] > 0:
                    bx1 = bx0 + size
                else:
                    bx0 = bx1 - size
            boxes[row] = (bx0, by0, bx1, by1)
        return boxes

    def _style(self, raw: Any, index: int, address: int, to_page: Matrix
               ) -> tuple[str, float, bool, Matrix, bool, bool] | None:
        """A text object's font name, type size, invisibility and matrix (in page
        space), and whether its glyphs stand upright and unturned."""
        obj = ctypes.c_void_p(address)
        font_size, matrix = self._font_size, self._matrix
        if not self._get_font_size(obj, self._font_size_at):
            return None
        if not self._get_matrix(raw, index, self._matrix_at):
            return None
        m = _multiply((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f), to_page)
        scaled = (m[0] * font_size.value, m[1] * font_size.value,
                  m[2] * font_size.value, m[3] * font_size.value, m[4], m[5])
        plain = scaled[1] == 0 and scaled[2] == 0
        upright = scaled[0] * scaled[3] > 0 and scaled[1] * scaled[2] <= 0
        invisible = self._get_render_mode(obj) == INVISIBLE_RENDER_MODE
        size = abs(scaled[3]) if plain else (scaled[2] ** 2 + scaled[3] ** 2) ** 0.5
        if size == 0:
            return None
        return (self._font_name(obj), size, invisible, scaled, upright, plain)

    def _font_name(self, obj: Any) -> str:
        key = self._get_font(obj)
        name = self._fonts.get(key)
        if name is None:
            buffer = ctypes.create_string_buffer(_FONT_NAME_BYTES)
            length = pdfium_c.FPDFFont_GetBaseFontName(
                ctypes.cast(key, pdfium_c.FPDF_FONT), buffer, _FONT_NAME_BYTES)
            name = self._fonts[key] = (buffer.value.decode("latin-1", "replace")
                                       if length else "")
        return name

    def _shapes(self, raw: Any, to_page: Matrix) -> Iterator[LTLine | LTRect]:
        """The page's straight lines and axis-aligned rectangles (what pdfminer makes
        `LTLine` and `LTRect`), forms' included; curves and long paths are drawings."""
        budget = self._budget
        stack: list[tuple[Any, int, bool, Matrix]] = [
            (raw, pdfium_c.FPDFPage_CountObjects(raw), False, to_page)]
        seen = 0
        matrix = pdfium_c.FS_MATRIX()
        x, y = ctypes.c_float(), ctypes.c_float()
        while stack:
            holder, count, is_form, outer = stack.pop()
            for index in range(count):
                obj = (pdfium_c.FPDFFormObj_GetObject(holder, index) if is_form
                       else pdfium_c.FPDFPage_GetObject(holder, index))
                kind = pdfium_c.FPDFPageObj_GetType(obj)
                if kind == _FORM:
                    inner = outer
                    if pdfium_c.FPDFPageObj_GetMatrix(obj, matrix):
                        inner = _multiply((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e,
                                           matrix.f), outer)
                    stack.append((obj, pdfium_c.FPDFFormObj_CountObjects(obj), True, inner))
                    continue
                if kind != _PATH:
                    continue
                seen += 1
                if seen > MAX_PAGE_PATHS:
                    return
                budget.drawn()
                segments = pdfium_c.FPDFPath_CountSegments(obj)
                if not 2 <= segments <= MAX_PATH_SEGMENTS:
                    continue
                if not pdfium_c.FPDFPageObj_GetMatrix(obj, matrix):
                    continue
                m = _multiply((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f),
                              outer)
                subpath: list[tuple[float, float]] = []
                closed = False
                for number in range(segments + 1):
                    segment = (pdfium_c.FPDFPath_GetPathSegment(obj, number)
                               if number < segments else None)
                    kind = pdfium_c.FPDFPathSegment_GetType(segment) if segment else _MOVETO
                    if kind == _MOVETO and subpath:
                        shape = _shape(subpath, closed)
                        if shape is not None:
                            yield shape
                    if segment is None:
                        break
                    if kind == _MOVETO:
                        subpath, closed = [], False
                    elif kind != _LINETO or not subpath:
                        subpath = []  # a curve: this subpath is no rule
                        continue
                    pdfium_c.FPDFPathSegment_GetPoint(segment, x, y)
                    subpath.append(_apply(m, x.value, y.value))
                    closed = bool(pdfium_c.FPDFPathSegment_GetClose(segment))


_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def _visual(run: list[LTChar]) -> list[LTChar]:
    """One text object's glyphs left to right when it holds right-to-left letters."""
    if len(run) > 1 and _RIGHT_TO_LEFT.search("".join(c._text for c in run)) and all(
            c.upright for c in run):
        return sorted(run, key=lambda c: c.x0)
    return run


def _shape(points: list[tuple[float, float]], closed: bool) -> LTLine | LTRect | None:
    """A subpath as pdfminer's `paint_path` classifies it: `ml` or `mlh` a line, `mlllh`
    or `mllll` closed on an axis-aligned rectangle a rectangle; else no rule."""
    shape = "m" + "l" * (len(points) - 1) + ("h" if closed else "")
    pts = [*points, points[0]] if closed else list(points)
    if len(shape) > 3 and shape[-2:] == "lh" and pts[-2] == pts[0]:
        shape = shape[:-2] + "h"
        pts.pop()
    if shape in ("ml", "mlh"):
        return LTLine(0, pts[0], pts[1])
    if shape not in ("mlllh", "mllll") or pts[0] != pts[4]:
        return None
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts[:4]
    if ((x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0)
            or (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)):
        return LTRect(0, (min(x0, x2), min(y0, y2), max(x0, x2), max(y0, y2)))
    return None
