"""A second text engine for pages whose fonts pdfminer cannot decode (ADR-0013).

PDFium reads fonts pdfminer.six cannot: TrueType and CFF programs whose own cmap or
glyph names are the only way from codes to letters, embedded encodings that the font
dictionary does not repeat. It is an optional dependency (the `pdfium` extra); without
it garbled pages are flagged and their garbage dropped, never recovered.
"""

from __future__ import annotations

import ctypes
import threading
from collections import Counter
from typing import Any

from ...domain.pdf.formulas import is_math_font, is_math_symbol
from ...domain.pdf.geometry import bbox_union
from ...domain.pdf.glyph_plausibility import implausible_fonts
from ...domain.pdf.structure import TextBox, TextLine, is_bold_font

try:
    import pypdfium2
    import pypdfium2.raw as pdfium_c
except ImportError:  # pragma: no cover - exercised when the extra is absent
    pypdfium2 = None
    pdfium_c = None

_FONT_NAME_BYTES = 128
PDFIUM_LOCK = threading.RLock()
"""PDFium is not thread-safe and extractions run in worker threads: every call into it
holds this lock (the Python work between calls does not)."""


def pdfium_available() -> bool:
    return pypdfium2 is not None


class PdfiumPages:
    """Lines of single pages read by PDFium, the document opened once, on first use."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._document: Any = None

    def plausible_boxes(self, number: int) -> list[TextBox] | None:
        """Page `number`'s text boxes as PDFium reads them, or None when PDFium is not
        installed, fails on the page, or reads some font of it as garbage too."""
        if pypdfium2 is None:
            return None
        try:
            with PDFIUM_LOCK:
                lines, text_by_font = self._page_lines(number)
        except Exception:
            return None
        if not lines or implausible_fonts(text_by_font):
            return None
        return _group_lines(lines, number)

    def close(self) -> None:
        if self._document is not None:
            with PDFIUM_LOCK:
                self._document.close()
            self._document = None

    def _page_lines(self, number: int) -> tuple[list[TextLine], dict[str, str]]:
        if self._document is None:
            self._document = pypdfium2.PdfDocument(self._data)
        page = self._document[number - 1]
        textpage = page.get_textpage()
        try:
            return _read_lines(textpage)
        finally:
            textpage.close()
            page.close()


def _read_lines(textpage: Any) -> tuple[list[TextLine], dict[str, str]]:
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count) if count else ""
    buffer = ctypes.create_string_buffer(_FONT_NAME_BYTES)
    flags = ctypes.c_int()
    text_by_font: dict[str, list[str]] = {}
    lines: list[TextLine] = []
    glyphs: list[str] = []
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    math = [0]
    box = [float("inf"), float("inf"), float("-inf"), float("-inf")]

    def finish() -> None:
        line_text = "".join(glyphs).strip()
        if line_text and sizes:
            font = fonts.most_common(1)[0][0]
            lines.append(TextLine(text=line_text, size=sizes.most_common(1)[0][0], font=font,
                                  bold=is_bold_font(font), chars=sum(sizes.values()),
                                  bbox=(box[0], box[1], box[2], box[3]), math=math[0]))
        math[0] = 0
        glyphs.clear()
        sizes.clear()
        fonts.clear()
        box[:] = [float("inf"), float("inf"), float("-inf"), float("-inf")]

    # get_text_range returns one character per index, PDFium's generated line breaks
    # included, so index i of the text is character i of the page.
    for index, char in enumerate(text[:count]):
        if char in "\r\n":
            if char == "\n":
                finish()
            continue
        glyphs.append(char)
        if char.isspace():
            continue
        length = pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, buffer, _FONT_NAME_BYTES,
                                               ctypes.byref(flags))
        font = buffer.value.decode("latin-1", "replace") if length else ""
        sizes[round(float(pdfium_c.FPDFText_GetFontSize(textpage.raw, index)), 1)] += 1
        fonts[font] += 1
        math[0] += is_math_font(font) or is_math_symbol(char)
        text_by_font.setdefault(font, []).append(char)
        left, bottom, right, top = textpage.get_charbox(index)
        box[:] = [min(box[0], left), min(box[1], bottom), max(box[2], right),
                  max(box[3], top)]
    finish()
    return lines, {font: "".join(chars) for font, chars in text_by_font.items()}


def _group_lines(lines: list[TextLine], number: int) -> list[TextBox]:
    """Consecutive lines of one size, close below each other and overlapping sideways,
    make one box (a paragraph or a heading), as pdfminer's layout analysis would."""
    boxes: list[list[TextLine]] = []
    for line in lines:
        previous = boxes[-1][-1] if boxes else None
        if (previous is not None and abs(previous.size - line.size) < 0.5
                and 0 <= previous.bbox[1] - line.bbox[3] <= 0.8 * line.size
                and min(previous.bbox[2], line.bbox[2]) > max(previous.bbox[0], line.bbox[0])):
            boxes[-1].append(line)
        else:
            boxes.append([line])
    return [TextBox(page=number, lines=tuple(group), bbox=bbox_union(x.bbox for x in group))
            for group in boxes]
