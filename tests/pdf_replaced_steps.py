"""Steps of the PDF reading that faster ones replaced, kept as the references the tests
hold the replacements to (same outputs for any input)."""

from __future__ import annotations

import re
from typing import Any

_BREAK_AT_END = re.compile(r"(?<=[a-zà-ÿ])-$")


def join_searching_whole_paragraph(lines: list[str]) -> str:
    """`join_lines` as it was: the break searched over the whole paragraph so far, once
    per line (quadratic); the shipped one looks at its last two characters only."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        broken = _BREAK_AT_END.search(out)
        if out.endswith("\u00ad"):
            out = out[:-1] + line
        elif broken and line[:1].islower():
            last_word = out.rsplit(" ", 1)[-1]
            out = out + line if last_word.count("-") > 1 else out[:-1] + line
        else:
            out = out + " " + line
    return out


def walk_reading_every_page(pdf: Any, budget: Any, max_pages: int) -> None:
    """`stream_bounds._walk` as it was: each page's resources read from pikepdf again,
    object by object (the shipped walk reads each object's kind and children once per
    document)."""
    import pikepdf

    from sheaf.adapters.pdf.stream_bounds import (
        _NOT_FOLLOWED,
        _containers,
        _count_drawing,
        _read,
    )

    tokens: dict[tuple[int, int], int] = {}
    limit = budget.limits.max_page_operations
    for number, page in enumerate(pdf.pages, start=1):
        if number > max_pages:
            break
        budget.start_page(number)
        contents = page.obj.get("/Contents")
        operations = sum(_read(stream, budget, tokens, content=True)
                         for stream in _containers(
                             contents if isinstance(contents, pikepdf.Array)
                             else [contents])
                         if isinstance(stream, pikepdf.Stream))
        seen: set[tuple[int, int]] = set()
        stack = _containers([page.obj.get("/Resources")])
        while stack:
            item = stack.pop()
            if item.is_indirect:
                if item.objgen in seen:
                    continue
                seen.add(item.objgen)
            if isinstance(item, pikepdf.Array):
                stack.extend(_containers(item))
                continue
            if isinstance(item, pikepdf.Stream):
                if item.get("/Subtype") == pikepdf.Name.Image:
                    continue
                operations += _read(item, budget, tokens,
                                    content=item.get("/Subtype") == pikepdf.Name.Form)
            if operations > limit:
                raise budget.too_complex(f"runs more than {limit} content operations")
            stack.extend(_containers(value for key, value in item.items()
                                     if key not in _NOT_FOLLOWED))
        if operations > limit:
            raise budget.too_complex(f"runs more than {limit} content operations")
        if operations > budget.limits.max_page_objects:
            _count_drawing(contents, seen, pdf, budget)
        budget.check_time()


def typed_pdfium_pages() -> type:
    """`PdfiumLayoutPages` with its character reading as it was before the fourth pass:
    each character's text object and loose box asked in a Python loop through functions
    with declared argument types, the style through pypdfium2's typed bindings."""
    import ctypes

    import numpy as np
    import pypdfium2.raw as pdfium_c
    from pdfminer.layout import LTChar

    from sheaf.adapters.pdf import pdfium_layout
    from sheaf.adapters.pdf.font_encoding import CORPORATE_USE
    from sheaf.adapters.pdf.glyph_boxes import GlyphChar
    from sheaf.adapters.pdf.layout_parameters import INVISIBLE_RENDER_MODE

    Matrix = pdfium_layout.Matrix
    _GENERATED_CODES = pdfium_layout._GENERATED_CODES
    _FONT_NAME_BYTES = pdfium_layout._FONT_NAME_BYTES
    _box, _multiply = pdfium_layout._box, pdfium_layout._multiply

    def _address_function(function: Any, *argtypes: Any, returns: Any = ctypes.c_void_p
                          ) -> Any:
        prototype = ctypes.CFUNCTYPE(returns, *argtypes)
        return prototype(ctypes.cast(function, ctypes.c_void_p).value)

    class Typed(pdfium_layout.PdfiumLayoutPages):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._text_object = _address_function(
                pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p, ctypes.c_int)
            self._loose_box = _address_function(
                pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_void_p, ctypes.c_int,
                ctypes.c_void_p)
            self._is_generated = _address_function(
                pdfium_c.FPDFText_IsGenerated, ctypes.c_void_p, ctypes.c_int,
                returns=ctypes.c_int)

        def _glyphs(self, textpage: Any, to_page: Matrix
                    ) -> tuple[list[int], list[LTChar], Any]:
            """The page's glyphs, the text object of each and their boxes, asked one
            character at a time."""
            raw = textpage.raw
            count = pdfium_c.FPDFText_CountChars(raw)
            if count <= 0:
                return [], [], None
            self._budget.drawn_many(count)
            units = (ctypes.c_ushort * (2 * count + 1))()
            written = pdfium_c.FPDFText_GetText(raw, 0, count, units)
            # A character beyond the Basic Multilingual Plane takes two UTF-16 units, and
            # then the text no longer lines up with the character indices.
            codes = (units[:count] if written == count + 1 else
                     [pdfium_c.FPDFText_GetUnicode(raw, index) for index in range(count)])
            texts = list(map(chr, codes))
            code_array = np.array(codes, dtype=np.int64)
            for index in np.flatnonzero((code_array >= 0xE000) & (code_array <= 0xF8FF)).tolist():
                # PDFium gives Adobe's corporate-use glyphs (Symbol's sans-serif ©, a
                # font's small capitals) their private-use points; they are ordinary
                # characters, as the pdfminer engine reads them.
                texts[index] = CORPORATE_USE.get(texts[index], texts[index])
            raw_address = ctypes.cast(raw, ctypes.c_void_p).value
            is_generated = self._is_generated
            generated = {index for index in np.flatnonzero(np.isin(code_array, _GENERATED_CODES)
                                                           ).tolist()
                         if is_generated(raw_address, index)}
            text_object = self._text_object
            loose_box = self._loose_box
            rects = np.zeros((count, 4), dtype=np.float32)  # FS_RECTF: left, top, right, bottom
            rect_address = rects.ctypes.data
            rect_bytes = rects.strides[0]
            styles: dict[int, tuple[str, float, bool, Matrix, bool, bool] | None] = {}
            kept: list[int] = []
            owners: list[int] = []
            for index in range(count):
                if index in generated:
                    continue
                address = text_object(raw_address, index)
                if not address:
                    continue
                style = styles.get(address, ())
                if style == ():
                    style = styles[address] = self._style(raw, index, address, to_page)
                if style is None:
                    continue
                loose_box(raw_address, index, rect_address + rect_bytes * index)
                kept.append(index)
                owners.append(address)
            if not kept:
                return [], [], None
            known = [address for address, style in styles.items() if style is not None]
            number = {address: n for n, address in enumerate(known)}
            table = [styles[address] for address in known]
            style_of = np.array([number[address] for address in owners], dtype=np.intp)
            boxes = self._boxes(rects[kept].astype(np.float64), style_of, table, to_page)
            x0s, y0s, x1s, y1s = boxes.T.tolist()
            widths = (boxes[:, 2] - boxes[:, 0]).tolist()
            heights = (boxes[:, 3] - boxes[:, 1]).tolist()
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
            obj = ctypes.cast(address, pdfium_c.FPDF_PAGEOBJECT)
            font_size = ctypes.c_float()
            if not pdfium_c.FPDFTextObj_GetFontSize(obj, font_size):
                return None
            matrix = pdfium_c.FS_MATRIX()
            if not pdfium_c.FPDFText_GetMatrix(raw, index, matrix):
                return None
            m = _multiply((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f), to_page)
            scaled = (m[0] * font_size.value, m[1] * font_size.value,
                      m[2] * font_size.value, m[3] * font_size.value, m[4], m[5])
            plain = scaled[1] == 0 and scaled[2] == 0
            upright = scaled[0] * scaled[3] > 0 and scaled[1] * scaled[2] <= 0
            invisible = pdfium_c.FPDFTextObj_GetTextRenderMode(obj) == INVISIBLE_RENDER_MODE
            size = abs(scaled[3]) if plain else (scaled[2] ** 2 + scaled[3] ** 2) ** 0.5
            if size == 0:
                return None
            return (self._font_name(obj), size, invisible, scaled, upright, plain)

        def _font_name(self, obj: Any) -> str:
            font = pdfium_c.FPDFTextObj_GetFont(obj)
            key = ctypes.cast(font, ctypes.c_void_p).value or 0
            name = self._fonts.get(key)
            if name is None:
                buffer = ctypes.create_string_buffer(_FONT_NAME_BYTES)
                length = pdfium_c.FPDFFont_GetBaseFontName(font, buffer, _FONT_NAME_BYTES)
                name = self._fonts[key] = (buffer.value.decode("latin-1", "replace")
                                           if length else "")
            return name


    return Typed


def line_summary_by_counting(sizes_seen: list[float], fonts_seen: list[str]
                             ) -> tuple[float, str, int, int]:
    """A line's dominant size and font, bold and glyph counts as `_text_line` took
    them: every line counted through `Counter`s (the shipped one skips the counting
    for a line in one size or one font)."""
    from collections import Counter

    from sheaf.domain.pdf.structure import is_bold_font

    sizes: Counter[float] = Counter()
    for size, count in Counter(sizes_seen).items():
        sizes[round(size, 1)] += count
    fonts = Counter(fonts_seen)
    chars = sum(fonts.values())
    bold = sum(n for name, n in fonts.items() if is_bold_font(name))
    return sizes.most_common(1)[0][0], fonts.most_common(1)[0][0], bold, chars
