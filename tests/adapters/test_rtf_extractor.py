"""RTF documents are read as text (never stored as their markup), with what was left
out named in the notes."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.office.rtf_extractor import RtfExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.domain.document.content_source import ContentSource
from sheaf.domain.document.document import BlockKind
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.routing.routing import Route
from tests.office_fixtures import RTF_SENTENCE, rtf_bytes, rtf_escape
from tests.property_examples import examples


def test_an_rtf_keeps_its_text_structure_and_metadata_and_no_markup() -> None:
    document = RtfExtractor().extract_sync(rtf_bytes(), "mill.rtf")
    assert document.title == "The Mill Pond"
    assert document.metadata.authors == ("Ruth Barker",)
    assert document.metadata.keywords == ("mills", "water")
    assert [(h.level, h.draft.text) for h in document.headings()] == [(1, "Mill History")]
    assert RTF_SENTENCE in document.text
    assert "Café owners kept a résumé of every sale.[1] See the mill's page for more." \
        in document.text
    assert [(link.text, link.url) for link in document.links] == [
        ("the mill's page", "https://example.org/mill")]
    listed = next(b for b in document.blocks if b.kind is BlockKind.LIST)
    assert [i.text for i in listed.draft.items] == ["Grind", "Sift"]
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.draft.rows == (("Wheel", "12 ft"), ("Stones", "2 pairs"))
    assert "Мельница" in document.text  # bytes in the Cyrillic font's code page
    # The footnote ends the content; the link's target is listed after it.
    assert document.text.endswith("[1] Recorded by the clerk.\n\n"
                                  "- [the mill's page](https://example.org/mill)")
    assert document.blocks[-1].kind is BlockKind.LINKS
    for marker in ("\\par", "\\f0", "{", "}", "fonttbl", "Arial", "Riched20", "89504e"):
        assert marker not in document.text
    assert document.notes == ("left out: 2 images without alt text or caption",)


@pytest.mark.anyio
async def test_rtf_is_routed_by_its_header_whatever_it_is_named() -> None:
    extraction = DocumentExtraction(MemoryHtmlExtractor(), MemoryPdfExtractor(),
                                    formats={Route.RTF: RtfExtractor()})
    result = await extraction.extract(rtf_bytes(), declared_type="text/plain",
                                      location="mill.txt")
    assert result.source is ContentSource.RTF and "Mill History" in result.document.text


def test_groups_nested_past_the_limit_are_a_typed_error() -> None:
    body = b"{\\rtf1 " + b"{" * 5000 + b"deep" + b"}" * 5000 + b"}"
    with pytest.raises(SheafError) as caught:
        RtfExtractor().extract_sync(body, "deep.rtf")
    assert caught.value.kind is ErrorKind.CORRUPT and "deeper" in caught.value.message


_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_TEXT.filter(lambda t: t.strip()), min_size=1, max_size=5))
def test_any_text_written_as_rtf_reads_back(paragraphs: list[str]) -> None:
    body = "{\\rtf1\\ansi\\uc1 " + "".join(rtf_escape(p) + "\\par\n" for p in paragraphs) + "}"
    document = RtfExtractor().extract_sync(body.encode("ascii"), "any.rtf")
    read = [b.draft.text for b in document.blocks if b.kind is BlockKind.PARAGRAPH]
    assert read == [" ".join(p.split()) for p in paragraphs if p.split()]


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(rtf_bytes()) - 1), st.integers(0, 255)),
                min_size=1, max_size=12), st.integers(0, len(rtf_bytes())))
def test_damaged_rtf_ends_in_a_document_or_a_typed_error(flips: list[tuple[int, int]],
                                                         cut: int) -> None:
    damaged = bytearray(rtf_bytes())
    for at, value in flips:
        damaged[at] = value
    with contextlib.suppress(SheafError):
        RtfExtractor().extract_sync(bytes(damaged[:max(cut, 6)]), "damaged.rtf")


def test_double_byte_code_pages_and_unicode_fallbacks() -> None:
    # Shift-JIS "日本" as \'hh pairs in a font of charset 128; then \u with a two-byte
    # fallback (\uc2) that must be skipped byte by byte.
    body = (b"{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f1\\fcharset128 MS Mincho;}}"
            b"{\\f1 \\'93\\'fa\\'96\\'7b}\\par\\uc2 \\u26085\\'93\\'fa next\\par}")
    document = RtfExtractor().extract_sync(body, "jp.rtf")
    assert [b.draft.text for b in document.blocks] == ["日本", "日 next"]
