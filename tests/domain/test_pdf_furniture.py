"""Margin stamps and printer's slugs kept once per distinct line, after the content; running
lines placed on their pages (tests/adapters/test_pdf_running_lines.py has the PDFs)."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.document.document import BlockDraft, BlockKind, ListItem
from sheaf.domain.pdf.furniture import (
    PageFurniture,
    furniture_blocks,
    page_furniture,
    place_furniture,
)
from sheaf.domain.pdf.structure import TextBox, TextLine
from tests.property_examples import examples


def box(page: int, text: str, top: float) -> TextBox:
    bbox = (72.0, top - 10, 300.0, top)
    return TextBox(page=page, lines=(TextLine(text=text, size=8, font="F1", bold=False,
                                              chars=len(text), bbox=bbox),), bbox=bbox)


@given(pages=st.integers(min_value=3, max_value=40), first=st.integers(1, 900))
@settings(max_examples=examples(30), deadline=None)
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


def test_printer_slugs_are_told_from_running_lines() -> None:
    from sheaf.domain.pdf.furniture import is_printer_slug

    assert is_printer_slug("01_ch01_5425.qxd 2/10/04 3:46 PM Page iv")
    assert is_printer_slug("Downloaded on 12/3/2019 10:45 AM")
    assert is_printer_slug("chapter3.indd 12")
    assert not is_printer_slug("Journal of Tests 12 (2008) 143")
    assert not is_printer_slug("JCAP10(2008)003")
    assert not is_printer_slug("Proceedings of NAACL-HLT 2013, pages 211-220, 9/10 June")


def draft(kind: BlockKind, text: str, *pages: int) -> BlockDraft:
    return BlockDraft(kind, text=text, pages=pages)


def furniture_of(pages: int, *, header: bool = True, footer: bool = True
                 ) -> dict[int, PageFurniture]:
    return {p: PageFurniture(
        headers=(draft(BlockKind.FURNITURE, f"header {p}", p),) if header else (),
        footers=(draft(BlockKind.FURNITURE, f"footer {p}", p),) if footer else ())
        for p in range(1, pages + 1)}


def texts(drafts: list[BlockDraft]) -> list[str]:
    return [d.text for d in drafts]


def test_a_paragraph_going_on_to_the_next_page_is_whole_and_the_furniture_follows_it() -> None:
    drafts = [draft(BlockKind.HEADING, "Title", 1),
              draft(BlockKind.PARAGRAPH, "It starts here and goes on to the next", 1),
              draft(BlockKind.FOOTNOTE, "1 A note.", 1),
              draft(BlockKind.PARAGRAPH, "page, where it ends.", 2),
              draft(BlockKind.PARAGRAPH, "Another one.", 2)]
    placed = place_furniture(drafts, furniture_of(2), 2)
    assert texts(placed) == [
        "header 1", "Title",
        "It starts here and goes on to the next page, where it ends.",
        "1 A note.", "footer 1", "header 2", "Another one.", "footer 2"]
    assert placed[2].pages == (1, 2)


def test_between_blocks_the_furniture_sits_between_them_footer_first() -> None:
    drafts = [draft(BlockKind.PARAGRAPH, "A whole paragraph.", 1),
              draft(BlockKind.FOOTNOTE, "2 A note on page one.", 1),
              draft(BlockKind.PARAGRAPH, "Another whole paragraph.", 3)]
    placed = place_furniture(drafts, furniture_of(3), 3)
    # Page 2 has no text of its own: its header and footer still come, in page order.
    assert texts(placed) == ["header 1", "A whole paragraph.", "2 A note on page one.",
                             "footer 1", "header 2", "footer 2", "header 3",
                             "Another whole paragraph.", "footer 3"]


def test_a_lower_case_start_goes_on_a_sentence_and_a_list_keeps_its_parts() -> None:
    drafts = [draft(BlockKind.PARAGRAPH, "As shown in Fig.", 1),
              draft(BlockKind.PARAGRAPH, "3 the values rise.", 2)]
    # "3 the" does not start with a lower-case letter and Fig. ends like a sentence.
    assert texts(place_furniture(drafts, furniture_of(2, header=False), 2)) == [
        "As shown in Fig.", "footer 1", "3 the values rise.", "footer 2"]
    drafts = [draft(BlockKind.PARAGRAPH, "We count the leaves.", 1),
              draft(BlockKind.PARAGRAPH, "then the roots.", 2)]
    assert texts(place_furniture(drafts, furniture_of(2, footer=False), 2)) == [
        "header 1", "We count the leaves. then the roots.", "header 2"]
    items = (ListItem("one"), ListItem("two and"))
    drafts = [BlockDraft(BlockKind.LIST, items=items, pages=(1,)),
              BlockDraft(BlockKind.LIST, items=(ListItem("three"),), pages=(2,))]
    placed = place_furniture(drafts, furniture_of(2, header=False), 2)
    assert [d.kind for d in placed] == [BlockKind.LIST, BlockKind.LIST,
                                        BlockKind.FURNITURE, BlockKind.FURNITURE]


def test_a_reference_printed_over_two_pages_has_the_furniture_after_it() -> None:
    drafts = [draft(BlockKind.REFERENCE, "Smith, A. 2001. A long title", 1, 2),
              draft(BlockKind.REFERENCE, "Jones, B. 2002. Another.", 2)]
    assert texts(place_furniture(drafts, furniture_of(2), 2)) == [
        "header 1", "Smith, A. 2001. A long title", "footer 1", "header 2",
        "Jones, B. 2002. Another.", "footer 2"]


def test_a_page_number_joins_its_band_and_stands_alone_without_one() -> None:
    body = [box(p, "Body text of the page", 400) for p in (1, 2, 3)]
    running = [box(1, "Journal of Tests", 60), box(1, "12", 40),  # a row of its own
               box(2, "Journal of Tests", 40), right(box(2, "13", 40)),
               box(3, "xiv", 40), box(3, "A Running Title", 760)]
    pages = page_furniture(running, body)
    assert texts(list(pages[1].footers)) == ["Journal of Tests 12"]
    assert texts(list(pages[2].footers)) == ["Journal of Tests 13"]
    assert texts(list(pages[3].footers)) == ["xiv"]
    assert texts(list(pages[3].headers)) == ["A Running Title"]
    assert all(b.pages == (p,) and b.bbox for p, f in pages.items()
               for b in (*f.headers, *f.footers))


def right(b: TextBox) -> TextBox:
    bbox = (500.0, b.bbox[1], 520.0, b.bbox[3])
    return TextBox(page=b.page, lines=(attrs.evolve(b.lines[0], bbox=bbox),), bbox=bbox)


def test_a_number_drawn_over_itself_is_read_once() -> None:
    doubled = TextBox(page=2, lines=(TextLine(text="143143", size=8, font="F1", bold=False,
                                              chars=6, bbox=(300, 43, 312, 51)),),
                      bbox=(300, 43, 312, 51))
    pages = page_furniture([doubled], [box(2, "Body", 400)])
    assert texts(list(pages[2].footers)) == ["143"]
    wide = attrs.evolve(doubled, bbox=(300, 43, 330, 51))
    assert texts(list(page_furniture([wide], [box(2, "Body", 400)])[2].footers)) == ["143143"]


def test_printed_page_numbers() -> None:
    from sheaf.domain.pdf.structure import is_printed_page_number

    assert all(map(is_printed_page_number, ["3", "- 12 -", "Page 4 of 9", "xiv", "12/40",
                                            "143143", "— 7 —"]))
    assert not any(map(is_printed_page_number, ["❚❘❙ ❚❘❙", "Fig", "12345", "3 4", ","]))


LONG_START = ("Sampling sites and methods are listed for each region in the appendix, with the "
              "supplementary table giving the full list of stations")
LONG_NEXT = ("The second survey measured canopy height at every station in spring, and "
             "density fell with depth in every region sampled that year.")


def test_what_does_not_go_on_a_paragraph_stays_apart_at_a_page_break() -> None:
    # A caption at the top of the next page, a label or a missed running head (a line or
    # so of text), and any break where no running line would stand between the parts.
    for before, after in ((LONG_START, "Figure 1. The residual Hubble diagram."),
                          (LONG_START, "Table IV lists the stations by region and depth."),
                          ("INTRODUCTION 3", "On the day after the survey the team met."),
                          (LONG_START, "Quayle, Dan, 110"),
                          ("281-82 Quayle, Dan, 110", "Reagan, Ronald, 7, 40-44")):
        drafts = [draft(BlockKind.PARAGRAPH, before, 1), draft(BlockKind.PARAGRAPH, after, 2)]
        assert texts(place_furniture(drafts, furniture_of(2), 2)) == [
            "header 1", before, "footer 1", "header 2", after, "footer 2"], (before, after)
    for continuation in (LONG_NEXT, "page, where it ends."):
        drafts = [draft(BlockKind.PARAGRAPH, LONG_START, 1),
                  draft(BlockKind.PARAGRAPH, continuation, 2)]
        assert texts(place_furniture(drafts, furniture_of(2, header=False, footer=False),
                                     2)) == [LONG_START, continuation]


def test_a_paragraph_stopping_mid_sentence_goes_on_with_a_capital_across_running_lines(
        ) -> None:
    drafts = [draft(BlockKind.PARAGRAPH, LONG_START, 1),
              draft(BlockKind.PARAGRAPH, LONG_NEXT, 2)]
    assert texts(place_furniture(drafts, furniture_of(2), 2)) == [
        "header 1", f"{LONG_START} {LONG_NEXT}", "footer 1", "header 2", "footer 2"]


def test_a_sentence_ended_by_a_footnote_number_and_an_appendix_caption_are_ends() -> None:
    for before, after in ((LONG_START + ".16", LONG_NEXT), (LONG_START + ".”1", LONG_NEXT),
                          (LONG_START, "Figure A.1. The left panel presents the function.")):
        drafts = [draft(BlockKind.PARAGRAPH, before, 1), draft(BlockKind.PARAGRAPH, after, 2)]
        assert texts(place_furniture(drafts, furniture_of(2), 2)) == [
            "header 1", before, "footer 1", "header 2", after, "footer 2"], (before, after)
