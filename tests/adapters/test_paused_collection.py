"""The collector held off while documents are read: counted across threads, the
program's own choice kept, bounded when readers overlap without end, and used by the
HTML and PDF extractors."""

from __future__ import annotations

import gc
import threading

import pytest

from sheaf.adapters.extraction.paused_collection import paused_collection
from sheaf.adapters.html import html5lib_extractor
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.pdf import pdfminer_extractor
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from tests.pdf_writer import write_raw_page_pdf


def test_the_collector_is_paused_while_reading_and_restored_after() -> None:
    assert gc.isenabled()
    inside: list[bool] = []
    release = threading.Event()

    def reader() -> None:
        with paused_collection():
            inside.append(gc.isenabled())
            release.wait(5)

    other = threading.Thread(target=reader)
    with paused_collection():
        other.start()
        while not inside:
            release.wait(0.01)
    # The other reader is still reading: the collector stays off until it ends.
    assert not gc.isenabled() and inside == [False]
    release.set()
    other.join()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_collection():
            pass
        assert not gc.isenabled()  # the program's own choice stands
    finally:
        gc.enable()


def test_readers_that_overlap_without_end_still_let_the_collector_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sheaf.adapters.extraction.paused_collection as pause

    monkeypatch.setattr(pause, "LONGEST_PAUSE", 0.0)
    collections: list[str] = []

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            collections.append(phase)

    gc.callbacks.append(heard)
    try:
        with paused_collection():
            with paused_collection():  # a second reader ends while the first still reads
                pass
            assert not gc.isenabled() and collections == ["start"]
        assert gc.isenabled() and collections == ["start"]  # the last one just turns it on
    finally:
        gc.callbacks.remove(heard)


def test_both_extractors_read_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    seen: list[bool] = []
    read_page, extract = html5lib_extractor.read_page, PdfminerExtractor._extract

    def reading_page(*args: object) -> object:
        seen.append(gc.isenabled())
        return read_page(*args)  # type: ignore[arg-type]

    def extracting(self: PdfminerExtractor, *args: object) -> object:
        seen.append(gc.isenabled())
        return extract(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(html5lib_extractor, "read_page", reading_page)
    monkeypatch.setattr(pdfminer_extractor.PdfminerExtractor, "_extract", extracting)
    Html5libExtractor().extract_sync(b"<html><body><p>Tides rise.</p></body></html>",
                                     "https://example.org/")
    PdfminerExtractor().extract_sync(write_raw_page_pdf(["BT /F1 12 Tf 72 700 Td (Tides) Tj ET"]))
    assert seen == [False, False] and gc.isenabled()
