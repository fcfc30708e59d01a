"""A text line's dominant size and font (ADR-0042, fifth pass): a line in one size or
one font is not counted, and reads as counting every line did."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from pdfminer.layout import LTTextLineHorizontal

from sheaf.adapters.pdf.layout_reading import _line_summary
from tests.pdf_replaced_steps import line_summary_by_counting
from tests.property_examples import examples

# Sizes that round together (9.96, 10.04) and apart, equal and not; NaN now and then.
SIZE = st.sampled_from([9.96, 10.0, 10.04, 10.05, 12.0, 7.5]) | st.floats(0, 40)
FONT = st.sampled_from(["Times-Roman", "ABCDEF+Times-Bold", "CMMI10", "Helvetica-Bold",
                        "Arial,Bold", ""])


@given(st.lists(st.tuples(SIZE | st.just(math.nan), FONT), min_size=1, max_size=40),
       st.booleans())
@settings(max_examples=examples(400), deadline=None)
def test_a_lines_size_and_font_are_those_counting_gave(
        glyphs: list[tuple[float, str]], uniform: bool) -> None:
    sizes = [size for size, _ in glyphs]
    fonts = [font for _, font in glyphs]
    if uniform:  # the lines the counting is skipped for, one size and one font
        sizes, fonts = [sizes[0]] * len(sizes), [fonts[0]] * len(fonts)
    line = LTTextLineHorizontal(0.1)
    line.set_bbox((0.0, 0.0, 10.0, 10.0))
    ours = _line_summary(line, "text", sizes, fonts, ["a"] * len(sizes))
    size, font, bold, chars = line_summary_by_counting(sizes, fonts)
    # repr: a NaN size is not equal to itself, but must be the one chosen.
    assert repr((ours.size, ours.font, ours.chars)) == repr((size, font, chars))
    assert ours.bold == (bold >= 0.8 * chars)
