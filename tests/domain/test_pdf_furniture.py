"""Page furniture kept once per distinct line, after the content."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.document import BlockKind
from sheaf.domain.pdf_furniture import furniture_blocks
from sheaf.domain.pdf_structure import TextBox, TextLine


def box(page: int, text: str, top: float) -> TextBox:
    bbox = (72.0, top - 10, 300.0, top)
    return TextBox(page=page, lines=(TextLine(text=text, size=8, font="F1", bold=False,
                                              chars=len(text), bbox=bbox),), bbox=bbox)


@given(pages=st.integers(min_value=3, max_value=40), first=st.integers(1, 900))
@settings(max_examples=30, deadline=None)
def test_a_footer_whose_page_number_changes_is_one_line_with_every_page(
        pages: int, first: int) -> None:
    boxes = [box(p, f"Journal of Tests 12 (2008) {first + p - 1}", 40) for p in range(1, pages + 1)]
    boxes += [box(p, "A Short Title of the Paper", 760) for p in range(2, pages + 1)]
    blocks = furniture_blocks(list(reversed(boxes)))
    assert [b.kind for b in blocks] == [BlockKind.FURNITURE] * 2
    footer, header = blocks  # the footer is first printed on page 1, the header on page 2
    assert footer.text == f"Journal of Tests 12 (2008) {first}"
    assert footer.pages == tuple(range(1, pages + 1))
    assert header.text == "A Short Title of the Paper"
    assert header.pages == tuple(range(2, pages + 1))


def test_top_of_the_page_comes_first_and_letterless_lines_are_left_out() -> None:
    blocks = furniture_blocks([box(1, "Footer  line", 40), box(1, "Header line", 760),
                               box(1, "143143", 20), box(1, "xiii", 30)])
    assert [b.text for b in blocks] == ["Header line", "Footer line"]
