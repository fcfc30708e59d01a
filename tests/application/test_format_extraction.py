"""DocumentExtraction and Ingestion with the new formats, on fakes of every port."""

from __future__ import annotations

import io
import zipfile

import pytest

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.ocr.memory_ocr_engine import MemoryOcrEngine
from sheaf.adapters.office.memory_format_extractor import MemoryFormatExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts, IngestOptions
from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.document.resolved_content import ContentSource
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ocr.recognised_text import OcrPage, OcrWord
from sheaf.domain.routing.media_type import DOCX_TYPE
from sheaf.domain.routing.routing import Route
from sheaf.domain.store.ingestion import IngestStatus

pytestmark = pytest.mark.anyio
PDF = b"%PDF-1.7 a scan"
PNG = b"\x89PNG\r\n\x1a\n an image"


def _docx_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", "<w/>")
    return buffer.getvalue()


def _page(number: int, text: str) -> OcrPage:
    return OcrPage(number, 100, 100, tuple(
        OcrWord(w, (i * 10.0, 0.0, i * 10.0 + 8, 10.0), 91.0, (1, 1), 1)
        for i, w in enumerate(text.split())))


def _text_page(number: int, text: str) -> BlockDraft:
    return BlockDraft(BlockKind.PARAGRAPH, text=text, pages=(number,))


class World:
    def __init__(self, *, ocr: bool = True) -> None:
        self.html, self.pdf = MemoryHtmlExtractor(), MemoryPdfExtractor()
        self.docx = MemoryFormatExtractor()
        self.ocr = MemoryOcrEngine()
        self.extraction = DocumentExtraction(self.html, self.pdf,
                                             formats={Route.DOCX: self.docx},
                                             ocr=self.ocr if ocr else None)


async def test_a_scanned_pdf_is_read_by_ocr() -> None:
    world = World()

    async def no_text(body: bytes, *, password: str | None = None) -> object:
        raise SheafError(ErrorKind.NO_TEXT_LAYER, "no page has a text layer")

    world.pdf.extract = no_text  # type: ignore[method-assign,assignment]
    world.ocr.add(PDF, (_page(1, "Scanned words here."), _page(2, "And more.")))
    extraction = await world.extraction.extract(PDF, declared_type=None, location="/s.pdf")
    assert extraction.source is ContentSource.OCR
    assert extraction.document.text == "Scanned words here.\n\nAnd more."
    assert "ocr_confidence page 1: 91.0 (3 words)" in extraction.document.notes
    assert world.ocr.calls == [None]


async def test_only_the_pages_without_a_text_layer_are_ocrd() -> None:
    world = World()
    text_layer = assemble_document([_text_page(1, "Typed page one."),
                                    _text_page(3, "Typed page three.")], page_count=3,
                                   pages_without_text=[2])
    world.pdf.add(PDF, text_layer)
    world.ocr.add(PDF, (_page(1, "wrong"), _page(2, "Scanned page two."), _page(3, "wrong")))
    extraction = await world.extraction.extract(PDF, declared_type=None, location="/m.pdf")
    assert world.ocr.calls == [(2,)]
    assert extraction.source is ContentSource.PDF
    assert extraction.document.text == ("Typed page one.\n\nScanned page two.\n\n"
                                         "Typed page three.")
    assert extraction.document.pages_without_text == ()
    assert not any(n.startswith("pages_without_text") for n in extraction.document.report)


async def test_without_an_ocr_engine_the_errors_say_so() -> None:
    world = World(ocr=False)

    async def no_text(body: bytes, *, password: str | None = None) -> object:
        raise SheafError(ErrorKind.NO_TEXT_LAYER, "no page has a text layer")

    world.pdf.extract = no_text  # type: ignore[method-assign,assignment]
    with pytest.raises(SheafError) as scan:
        await world.extraction.extract(PDF, declared_type=None, location="/s.pdf")
    assert scan.value.kind is ErrorKind.NO_TEXT_LAYER and "OCR" in scan.value.message
    with pytest.raises(SheafError) as image:
        await world.extraction.extract(PNG, declared_type=None, location="/i.png")
    assert image.value.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "image/png" in image.value.message and "OCR" in image.value.message


async def test_an_engine_error_reaches_the_caller_with_its_install_hint() -> None:
    world = World()

    async def missing(body: bytes, *, pages: object = None,
                      budget: object = None) -> tuple[OcrPage, ...]:
        raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, "OCR needs the `ocr` extra")

    world.ocr.recognise = missing  # type: ignore[method-assign]
    with pytest.raises(SheafError) as caught:
        await world.extraction.extract(PNG, declared_type="image/png", location="/i.png")
    assert "`ocr` extra" in caught.value.message and caught.value.url == "/i.png"


async def test_a_docx_goes_to_its_extractor_by_its_members() -> None:
    world = World()
    body = _docx_zip()
    world.docx.add(body, assemble_document([BlockDraft(BlockKind.PARAGRAPH, text="Hi.")]))
    extraction = await world.extraction.extract(body, declared_type="application/zip",
                                                location="/d.bin")
    assert extraction.source is ContentSource.DOCX and extraction.content_type == DOCX_TYPE


async def test_a_format_without_its_extractor_is_unsupported() -> None:
    extraction = DocumentExtraction(MemoryHtmlExtractor(), MemoryPdfExtractor())
    with pytest.raises(SheafError) as caught:
        await extraction.extract(_docx_zip(), declared_type=None, location="/d.docx")
    assert caught.value.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "docx extractor" in caught.value.message


async def test_a_dry_run_reports_what_a_real_run_would() -> None:
    world = World()
    files = MemoryFileReader({"/in/empty.txt": b"", "/in/notes.md": b"# N\n\nWords.\n",
                              "/in/fake.docx": b"text in disguise"})
    html = MemoryHtmlExtractor()
    ingestion = Ingestion(IngestionPorts(
        ContentResolver(MemoryHttpClient(HttpSettings()), html, world.pdf), world.extraction,
        files, MemoryKnowledgeStore().storage(), MemoryBlobStore(), MemoryArtifactStore()))
    dry = IngestOptions(dry_run=True)
    results = {path: await ingestion.ingest(path, dry) for path in sorted(files.files)}
    assert results["/in/notes.md"].status is IngestStatus.NEW
    assert results["/in/empty.txt"].status is IngestStatus.FAILED
    assert results["/in/empty.txt"].error_kind == "empty"
    assert results["/in/fake.docx"].error_kind == "unsupported_content"
    listing = await ingestion.expand_listing(["/in", "https://example.org/x"])
    assert listing.files == ("/in/notes.md", "https://example.org/x")
    assert {s.path: s.reason for s in listing.skipped} == {
        "/in/empty.txt": "empty", "/in/fake.docx": "unsupported_content (text)"}
