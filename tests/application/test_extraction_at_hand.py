"""`DocumentExtraction.extract_at_hand`, the reading of bytes in the calling thread that a
caller already off the event loop uses: for any body and declared type, it routes as
`extract` does, and gives the same extraction or the same error (with what
`extract_routed` gives on the routes it leaves to the event loop)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.extraction.document_extraction import DocumentExtraction, Extraction
from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.errors import SheafError
from sheaf.domain.routing.routing import Route
from tests.property_examples import examples

pytestmark = pytest.mark.anyio

WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
KNOWN_PAGE = b"<html><body><article><p>Seagrass grew with the tides.</p></article></body></html>"
KNOWN_PDF = b"%PDF-1.7 tides"


def _html_extractor() -> MemoryHtmlExtractor:
    html = MemoryHtmlExtractor()
    html.add(KNOWN_PAGE, assemble_document(
        [BlockDraft(BlockKind.PARAGRAPH, text="Seagrass grew with the tides.")]))
    return html


def _pdf_extractor() -> MemoryPdfExtractor:
    pdf = MemoryPdfExtractor()
    pdf.add(KNOWN_PDF, assemble_document(
        [BlockDraft(BlockKind.HEADING, text="Tides", level=1),
         BlockDraft(BlockKind.PARAGRAPH, text="Shoots doubled.")], page_count=1))
    return pdf


BODIES = st.one_of(
    WORDS.map(str.encode),  # plain text, Markdown, or nothing
    st.binary(max_size=200),  # noise the text check refuses, or stray bytes
    st.lists(st.lists(WORDS.filter(lambda w: "," not in w and "\n" not in w),
                      min_size=1, max_size=4), max_size=5).map(
        lambda rows: "\n".join(",".join(row) for row in rows).encode()),  # a table
    WORDS.map(lambda w: f"<html><body><p>{w}</p></body></html>".encode()),  # unknown page
    st.just(KNOWN_PAGE),
    st.just(KNOWN_PDF),
    st.just(b"%PDF-1.4 not one the extractor knows"),
)
DECLARED = st.sampled_from([None, "text/plain", "text/markdown", "text/csv",
                            "text/tab-separated-values", "text/html", "application/pdf",
                            "application/json", "text/plain; charset=latin-1",
                            "text/csv; charset=utf-16"])
LOCATIONS = st.sampled_from(["/tmp/notes.txt", "/tmp/Tides.csv", "file:///tmp/page.html",
                             "/tmp/report"])


def _outcome(found: Extraction | SheafError) -> object:
    if isinstance(found, SheafError):
        return ("error", found.kind, found.message, found.url)
    return found


async def _by_extract(extraction: DocumentExtraction, body: bytes, declared: str | None,
                      location: str) -> Extraction | SheafError:
    try:
        return await extraction.extract(body, declared_type=declared, location=location)
    except SheafError as exc:
        return exc


async def _at_hand(extraction: DocumentExtraction, body: bytes, declared: str | None,
                   location: str) -> Extraction | SheafError:
    try:
        decision, found = extraction.extract_at_hand(body, declared_type=declared,
                                                     location=location)
        if found is None:
            assert decision.route not in (Route.HTML, Route.RAW, Route.CSV)
            return await extraction.extract_routed(body, decision, location)
        assert found.decision == decision
        return found
    except SheafError as exc:
        return exc


@settings(max_examples=examples(300))
@given(body=BODIES, declared=DECLARED, location=LOCATIONS)
async def test_reading_at_hand_is_what_extract_gives(body: bytes, declared: str | None,
                                                     location: str) -> None:
    extraction = DocumentExtraction(_html_extractor(), _pdf_extractor())
    expected = await _by_extract(extraction, body, declared, location)
    assert _outcome(await _at_hand(extraction, body, declared, location)) == _outcome(expected)


def test_html_text_and_tables_are_read_in_the_calling_thread() -> None:
    extraction = DocumentExtraction(_html_extractor(), _pdf_extractor())
    for body, declared, route in ((KNOWN_PAGE, "text/html", Route.HTML),
                                  (b"# Notes\n\nFoxes wait.", "text/markdown", Route.RAW),
                                  (b"city,count\nLeeds,4\n", "text/csv", Route.CSV)):
        decision, found = extraction.extract_at_hand(body, declared_type=declared,
                                                     location="/tmp/x")
        assert decision.route is route and found is not None
        assert found.document.title  # the fallback title, as extract_routed gives it
    decision, found = extraction.extract_at_hand(KNOWN_PDF, declared_type=None,
                                                 location="/tmp/x.pdf")
    assert decision.route is Route.PDF and found is None
