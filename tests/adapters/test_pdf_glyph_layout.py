"""sheaf's glyph building and line grouping give exactly pdfminer's glyphs and lines."""

from __future__ import annotations

import io
import math

import pikepdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LTChar, LTPage, LTTextLine
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfinterp import PDFPageInterpreter
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser

from sheaf.adapters.pdf.content_budget import ContentBudget, ContentLimits
from sheaf.adapters.pdf.font_encoding import EncodingRepairingResources
from sheaf.adapters.pdf.layout_reading import LAYOUT, _pages
from sheaf.adapters.pdf.pdfium_layout import PdfiumLayoutPages
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from tests.pdf_replaced_steps import typed_pdfium_pages
from tests.pdf_writer import write_raw_page_pdf
from tests.property_examples import examples

MATRICES = ["1 0 0 1", "0 1 -1 0", "0 -1 1 0", "-1 0 0 -1", "1 0 0 -1", "1.5 0 0 0.8",
            "0.9 0.3 -0.3 0.9", "1 0 0.4 1", "-1 0 0 1"]


def _plain_pdfminer(data: bytes) -> LTPage:
    """pdfminer's own glyphs and lines, over sheaf's font encodings (a deliberate
    difference of their own, ADR-0013)."""
    resources = EncodingRepairingResources(caching=True)
    device = PDFPageAggregator(resources, laparams=LAYOUT)
    interpreter = PDFPageInterpreter(resources, device)
    page = next(PDFPage.create_pages(PDFDocument(PDFParser(io.BytesIO(data)))))
    interpreter.process_page(page)
    result: LTPage = device.get_result()
    return result


def _glyphs_and_lines(page: LTPage) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    chars: list[tuple[object, ...]] = []
    lines: list[tuple[object, ...]] = []
    stack: list[object] = [page]
    while stack:
        item = stack.pop()
        if isinstance(item, LTTextLine):
            lines.append((item.bbox, item.get_text()))
        if isinstance(item, LTChar):
            chars.append((item.bbox, item.matrix, item.get_text(), item.size, item.adv,
                          item.upright, item.fontname, item.width, item.height))
        elif hasattr(item, "_objs"):
            stack.extend(item._objs)  # type: ignore[attr-defined]
    return sorted(chars, key=repr), sorted(lines, key=repr)


@given(runs=st.lists(st.tuples(
    st.sampled_from(MATRICES), st.integers(20, 560), st.integers(20, 760),
    st.sampled_from([6, 9.5, 11, 24]), st.sampled_from([0, 0.7, -0.4]),
    st.sampled_from([0, 3]), st.sampled_from([100, 80, 130]), st.sampled_from([0, 2.5, -3]),
    st.text(alphabet="abcdefghij KLMNOP 0123,.()", min_size=1, max_size=30),
    st.sampled_from(["F1", "F2", "F3"])), min_size=1, max_size=12))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_glyphs_and_lines_are_pdfminers_in_any_matrix_spacing_scaling_and_rise(
        runs: list[tuple[str, int, int, float, float, float, int, float, str, str]]) -> None:
    commands = []
    for matrix, x, y, size, char_space, word_space, scale, rise, text, font in runs:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        commands.append(f"BT /{font} {size} Tf {char_space} Tc {word_space} Tw {scale} Tz "
                        f"{rise} Ts {matrix} {x} {y} Tm [({escaped}) -250 ({escaped})] TJ ET")
    data = write_raw_page_pdf(commands)
    budget = ContentBudget(ContentLimits(), deadline=float("inf"))
    ours = next(iter(_pages(data, budget, max_pages=1)))
    assert _glyphs_and_lines(ours) == _glyphs_and_lines(_plain_pdfminer(data))


@pytest.mark.skipif(not pdfium_available(), reason="the pdfium extra is not installed")
@given(runs=st.lists(st.tuples(
    st.sampled_from(MATRICES), st.integers(20, 560), st.integers(20, 760),
    st.sampled_from([6, 9.5, 11, 24]), st.sampled_from([0, 3]),
    st.text(alphabet="abcdefghij KLMNOP 0123,.()", min_size=1, max_size=30),
    st.sampled_from(["F1", "F2", "F3"]), st.sampled_from([0, 3])), min_size=1, max_size=12),
    rotate=st.sampled_from([0, 90, 180, 270]))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pdfium_glyphs_are_those_asked_one_by_one_with_typed_calls(
        runs: list[tuple[str, int, int, float, float, str, str, int]], rotate: int) -> None:
    """PDFium's characters read through untyped calls from map's loop, styles once per
    text object, are those of the Python loop with typed calls they replace, for text in
    any matrix (turned, skewed, mirrored), visible or invisible, on pages turned or not."""
    commands = []
    for matrix, x, y, size, word_space, text, font, mode in runs:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        commands.append(f"BT /{font} {size} Tf {word_space} Tw {mode} Tr {matrix} {x} {y} Tm "
                        f"[({escaped}) -250 ({escaped})] TJ ET")
    pdf = pikepdf.open(io.BytesIO(write_raw_page_pdf(commands)))
    pdf.pages[0].Rotate = rotate
    buffer = io.BytesIO()
    pdf.save(buffer)

    def read(reader: type) -> object:
        pages = reader(buffer.getvalue(), ContentBudget(ContentLimits(), math.inf), 1)
        try:
            page = next(iter(pages))
        finally:
            pages.close()
        hidden = sorted(repr(c.bbox) for c in _chars(page) if getattr(c, "sheaf_invisible", 0))
        return _glyphs_and_lines(page), hidden

    assert read(PdfiumLayoutPages) == read(typed_pdfium_pages())


def _chars(page: LTPage) -> list[LTChar]:
    found: list[LTChar] = []
    stack: list[object] = [page]
    while stack:
        item = stack.pop()
        if isinstance(item, LTChar):
            found.append(item)
        elif hasattr(item, "_objs"):
            stack.extend(item._objs)  # type: ignore[attr-defined]
    return found
