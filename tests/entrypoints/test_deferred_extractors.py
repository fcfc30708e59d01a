"""The PDF engines, office readers and OCR are imported when a document of their kind
first arrives (ADR-0039): every format still routes to its reader, a run over HTML
imports none of them, and the first build runs once, off the event loop."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest

from sheaf.adapters.extraction.deferred_extractors import (
    DeferredFormatExtractor,
    DeferredPdfExtractor,
)
from sheaf.domain.document.content_source import ContentSource
from sheaf.domain.document.document import Document
from sheaf.domain.document.extraction_budget import ExtractionBudget
from sheaf.domain.routing.routing import Route
from sheaf.entrypoints.api.composition import build_extraction
from tests.office_fixtures import (
    docx_bytes,
    epub_bytes,
    odt_bytes,
    pptx_bytes,
    rtf_bytes,
    xlsx_bytes,
)
from tests.pdf_writer import write_pdf

pytestmark = pytest.mark.anyio

PAGE = (b"<html><head><title>Tides</title></head><body><article><h1>Tides</h1>"
        b"<p>The harbour opens two hours before high water, and closes an hour after"
        b" it, every day of the year but the first.</p></article></body></html>")


@pytest.mark.parametrize(("name", "body", "route", "source"), [
    ("paper.pdf", write_pdf([("h1", "Harbour Rules"), ("p", "Boats moor at the east quay.")]),
     Route.PDF, ContentSource.PDF),
    ("report.docx", docx_bytes(), Route.DOCX, ContentSource.DOCX),
    ("deck.pptx", pptx_bytes(), Route.PPTX, ContentSource.PPTX),
    ("sheet.xlsx", xlsx_bytes(), Route.XLSX, ContentSource.SPREADSHEET),
    ("book.epub", epub_bytes(), Route.EPUB, ContentSource.EPUB),
    ("notes.odt", odt_bytes(), Route.ODF, ContentSource.OPENDOCUMENT),
    ("letter.rtf", rtf_bytes(), Route.RTF, ContentSource.RTF),
    ("page.html", PAGE, Route.HTML, ContentSource.HTML),
])
async def test_each_format_reaches_its_reader_through_the_deferred_build(
        name: str, body: bytes, route: Route, source: ContentSource) -> None:
    extraction = build_extraction()
    found = await extraction.extract(body, declared_type=None, location=f"/tmp/{name}")
    assert found.decision.route is route and found.source is source
    assert found.document.text.strip()
    # The PDF engine was built for the PDF alone.
    assert isinstance(extraction.pdf, DeferredPdfExtractor)
    assert extraction.pdf.built is (route is Route.PDF)


def test_extracting_html_imports_no_pdf_office_or_http_library(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(PAGE)
    probe = ("import sys, anyio\n"
             "from sheaf.entrypoints.api.knowledge import Knowledge\n"
             "async def run():\n"
             f"    async for one in Knowledge.extract([{str(page)!r}]):\n"
             "        assert one.error is None and 'harbour' in one.document.text\n"
             "anyio.run(run)\n"
             "heavy = ('pdfminer', 'pikepdf', 'pypdfium2', 'numpy', 'aiohttp', 'PIL')\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
             "             or m.startswith(('sheaf.adapters.pdf', 'sheaf.adapters.office',\n"
             "                              'sheaf.adapters.ocr'))))\n")
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


class _Reader:
    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        from sheaf.domain.text.raw_text import raw_document

        return raw_document(body.decode() + " at " + location, "text/plain")


async def test_readers_arriving_together_build_once_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    builds: list[int] = []
    entered = threading.Event()

    def build() -> _Reader:
        builds.append(threading.get_ident())
        entered.wait(5)  # the other readers arrive while the first is building
        return _Reader()

    deferred = DeferredFormatExtractor(build)
    assert not deferred.built
    texts: list[str] = []

    async def read(n: int) -> None:
        document = await deferred.extract(f"part {n}".encode(), location="/tmp/x")
        texts.append(document.text)

    async with anyio.create_task_group() as group:
        for n in range(4):
            group.start_soon(read, n)
        await anyio.sleep(0.05)
        entered.set()
    assert len(builds) == 1 and builds[0] != loop_thread
    assert deferred.built
    assert sorted(texts) == [f"part {n} at /tmp/x" for n in range(4)]


async def test_a_failed_build_is_tried_again_by_the_next_document() -> None:
    attempts: list[int] = []

    def build() -> _Reader:
        attempts.append(1)
        if len(attempts) == 1:
            raise ImportError("the extra is not installed")
        return _Reader()

    deferred = DeferredFormatExtractor(build)
    with pytest.raises(ImportError):
        await deferred.extract(b"one", location="/tmp/x")
    assert not deferred.built
    document = await deferred.extract(b"two", location="/tmp/x")
    assert document.text.startswith("two") and len(attempts) == 2
