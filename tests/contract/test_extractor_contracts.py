"""The HtmlExtractor and PdfExtractor contracts, against the fakes and the real adapters."""

from __future__ import annotations

import pytest

from sheaf.adapters.extraction.deferred_extractors import DeferredPdfExtractor
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.application.ports.html_extractor import HtmlExtractor
from sheaf.application.ports.pdf_extractor import PdfExtractor
from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.errors import ErrorKind, SheafError
from tests.pdf_writer import write_pdf

pytestmark = pytest.mark.anyio
PAGE = (b"<html><body><article><h1>Tides</h1><h2>Results</h2>"
        b"<p>Seagrass grew with the tides.</p></article></body></html>")
EMPTY_PAGE = b"<html><body><div class='cookie-banner'>We use cookies.</div></body></html>"
PDF = write_pdf([("h1", "Tides"), ("h2", "Results"), ("p", "Seagrass grew with the tides.")])
EXPECTED = assemble_document([BlockDraft(BlockKind.HEADING, text="Results", level=2),
                              BlockDraft(BlockKind.PARAGRAPH,
                                         text="Seagrass grew with the tides.")])


@pytest.fixture(params=["memory", "html5lib"])
def html(request: pytest.FixtureRequest) -> HtmlExtractor:
    if request.param == "html5lib":
        return Html5libExtractor()
    fake = MemoryHtmlExtractor()
    fake.add(PAGE, EXPECTED)
    return fake


@pytest.fixture(params=["memory", "pdfminer", "deferred pdfminer"])
def pdf(request: pytest.FixtureRequest) -> PdfExtractor:
    if request.param == "pdfminer":
        return PdfminerExtractor()
    if request.param == "deferred pdfminer":  # as the composition root hands it out
        return DeferredPdfExtractor(PdfminerExtractor)
    fake = MemoryPdfExtractor()
    fake.add(PDF, EXPECTED)
    return fake


async def test_html_gives_a_document_with_exact_spans(html: HtmlExtractor) -> None:
    document = await html.extract(PAGE, url="https://example.org/a", charset="utf-8")
    assert "Seagrass grew with the tides." in document.text
    for block in document.blocks:
        assert document.text[block.start:block.end] == block.markdown


async def test_html_without_main_content_is_empty(html: HtmlExtractor) -> None:
    with pytest.raises(SheafError) as caught:
        await html.extract(EMPTY_PAGE, url="https://example.org/b")
    assert caught.value.kind is ErrorKind.EMPTY


async def test_html_in_the_calling_thread_is_the_same_document(html: HtmlExtractor) -> None:
    url = "https://example.org/a"
    assert html.extract_sync(PAGE, url, "utf-8") == await html.extract(PAGE, url=url,
                                                                       charset="utf-8")
    with pytest.raises(SheafError) as caught:
        html.extract_sync(EMPTY_PAGE, "https://example.org/b")
    assert caught.value.kind is ErrorKind.EMPTY


async def test_pdf_gives_a_document_with_exact_spans(pdf: PdfExtractor) -> None:
    document = await pdf.extract(PDF)
    assert "Seagrass grew with the tides." in document.text
    for block in document.blocks:
        assert document.text[block.start:block.end] == block.markdown


async def test_a_non_pdf_is_refused(pdf: PdfExtractor) -> None:
    with pytest.raises(SheafError) as caught:
        await pdf.extract(b"<html>Sign in</html>")
    assert caught.value.kind is ErrorKind.NOT_A_PDF
