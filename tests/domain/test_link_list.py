"""A document's link targets are listed after its content, in Markdown link syntax,
without moving a character of the prose before them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.document.document import BlockDraft, BlockKind, Link
from sheaf.domain.document.extraction_budget import ExtractionBudget, ExtractionLimits
from sheaf.domain.document.link_list import listed_links, with_link_list
from sheaf.domain.document.markdown_rendering import assemble_document, document_plain_text
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.quotes.quote_verification import Verdict, verify_quote

PROSE = [BlockDraft(BlockKind.HEADING, text="Report", level=1),
         BlockDraft(BlockKind.PARAGRAPH, text="See the minutes for details.")]


def test_each_link_is_listed_in_order_as_markdown_and_as_plain_text() -> None:
    links = [Link("minutes", "https://example.org/minutes"),
             Link("minutes", "https://example.org/minutes"),
             Link("", "https://example.org/logo.png"),
             Link("a [draft] (v2)", "https://example.org/a b(c)")]
    document = assemble_document(with_link_list(PROSE, links), links=links)
    assert document.blocks[-1].kind is BlockKind.LINKS
    assert document.text.endswith(
        "See the minutes for details.\n\n"
        "- [minutes](https://example.org/minutes)\n"
        "- [minutes](https://example.org/minutes)\n"
        "- <https://example.org/logo.png>\n"
        "- [a \\[draft\\] (v2)](<https://example.org/a b(c)>)")
    assert document_plain_text(document).endswith(
        "minutes: https://example.org/minutes\nminutes: https://example.org/minutes\n"
        "https://example.org/logo.png\na [draft] (v2): https://example.org/a b(c)")


def test_jumps_within_the_document_and_empty_targets_are_not_listed() -> None:
    links = [Link("see below", "#part-2"), Link("nothing", "  ")]
    assert listed_links(links) == ()
    assert with_link_list(PROSE, links) == PROSE


def test_a_child_documents_list_is_replaced_by_one_list_at_the_end() -> None:
    child = with_link_list(PROSE, [Link("a", "https://a.example/")])
    drafts = with_link_list([*child, BlockDraft(BlockKind.PARAGRAPH, text="More.")],
                            [Link("a", "https://a.example/"), Link("b", "https://b.example/")])
    assert [d.kind for d in drafts].count(BlockKind.LINKS) == 1
    assert drafts[-1].rows == (("a", "https://a.example/"), ("b", "https://b.example/"))


def test_the_list_is_spent_from_the_documents_budget() -> None:
    budget = ExtractionBudget(ExtractionLimits(max_characters=40))
    try:
        with_link_list(PROSE, [Link("minutes", "https://example.org/" + "m" * 40)], budget)
    except SheafError as exc:
        assert exc.kind is ErrorKind.TOO_LARGE
    else:
        raise AssertionError("a link list past the character budget was accepted")


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=30).filter(lambda t: t.strip())


@given(st.lists(_TEXT, min_size=1, max_size=5),
       st.lists(st.tuples(_TEXT, st.from_regex(r"https://[a-z]{1,8}\.example/[a-z()_ ]{0,8}",
                                               fullmatch=True)), min_size=1, max_size=5))
def test_the_prose_keeps_its_offsets_and_quotes_whatever_the_links(
        paragraphs: list[str], pairs: list[tuple[str, str]]) -> None:
    drafts = [BlockDraft(BlockKind.PARAGRAPH, text=p) for p in paragraphs]
    links = [Link(text, url) for text, url in pairs]
    bare = assemble_document(drafts)
    listed = assemble_document(with_link_list(drafts, links), links=links)
    assert listed.text.startswith(bare.text)
    assert [(b.start, b.end) for b in listed.blocks[:-1]] == [
        (b.start, b.end) for b in bare.blocks]
    for block in listed.blocks:
        assert listed.text[block.start:block.end] == block.markdown


def test_a_sentence_holding_a_links_text_verifies_as_the_document_prints_it() -> None:
    links = [Link("minutes", "https://example.org/minutes")]
    document = assemble_document(with_link_list(PROSE, links), links=links)
    assert verify_quote(document.text, "See the minutes for details.").verdict \
        is Verdict.VERIFIED
