"""The OcrEngine contract, against the in-memory fake and Tesseract (when installed)."""

from __future__ import annotations

import pytest

from sheaf.adapters.extraction.deferred_extractors import DeferredOcrEngine
from sheaf.adapters.ocr.memory_ocr_engine import MemoryOcrEngine
from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr
from sheaf.application.ports.ocr_engine import OcrEngine
from sheaf.domain.document.extraction_budget import ExtractionBudget, ExtractionLimits
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ocr.recognised_text import OcrPage, OcrWord
from tests.office_fixtures import scanned_page, scanned_pdf

pytestmark = pytest.mark.anyio
TEXT = "Quiet rivers carry heavy boats slowly toward the northern harbour."


def _fake() -> tuple[OcrEngine, bytes, bytes]:
    image, pdf = scanned_page(TEXT), scanned_pdf(TEXT)
    words = tuple(OcrWord(w, (10.0 * i, 5.0, 10.0 * i + 8, 15.0), 95.0, (1, 1), 1)
                  for i, w in enumerate(TEXT.split()))
    fake = MemoryOcrEngine()
    fake.add(image, (OcrPage(1, 1700, 2200, words),))
    fake.add(pdf, (OcrPage(1, 1700, 2200, words),))
    return fake, image, pdf


@pytest.fixture(params=["memory", "tesseract", "deferred tesseract"])
def engine(request: pytest.FixtureRequest) -> tuple[OcrEngine, bytes, bytes]:
    if request.param == "memory":
        return _fake()
    tesseract = TesseractOcr()
    if not tesseract.available():
        pytest.skip("Tesseract is not installed (apt-get install tesseract-ocr)")
    if request.param == "deferred tesseract":  # as the composition root hands it out
        return DeferredOcrEngine(TesseractOcr), scanned_page(TEXT), scanned_pdf(TEXT)
    return tesseract, scanned_page(TEXT), scanned_pdf(TEXT)


def _words(pages: tuple[OcrPage, ...]) -> list[str]:
    return [w.text.strip(".,") for p in pages for w in p.words]


async def test_recognises_an_image_with_boxes_inside_the_page(
        engine: tuple[OcrEngine, bytes, bytes]) -> None:
    ocr, image, _ = engine
    pages = await ocr.recognise(image)
    assert [p.number for p in pages] == [1]
    assert _words(pages) == [w.strip(".") for w in TEXT.split()]
    page = pages[0]
    for word in page.words:
        left, top, right, bottom = word.box
        assert 0 <= left < right <= page.width and 0 <= top < bottom <= page.height
        assert 0 <= word.confidence <= 100
    assert page.confidence is not None and page.confidence > 60


async def test_recognises_only_the_pages_asked_for_in_a_pdf(
        engine: tuple[OcrEngine, bytes, bytes]) -> None:
    ocr, _, pdf = engine
    assert _words(await ocr.recognise(pdf, pages=[1]))
    assert await ocr.recognise(pdf, pages=[2]) == ()


async def test_unreadable_bytes_are_corrupt(engine: tuple[OcrEngine, bytes, bytes]) -> None:
    ocr, _, _ = engine
    with pytest.raises(SheafError) as caught:
        await ocr.recognise(b"\x89PNG\r\n\x1a\n not really a png")
    assert caught.value.kind is ErrorKind.CORRUPT


async def test_spends_frames_from_a_budget_it_is_given(
        engine: tuple[OcrEngine, bytes, bytes]) -> None:
    ocr, image, _ = engine
    budget = ExtractionBudget()
    assert _words(await ocr.recognise(image, budget=budget))
    assert budget.frames == 1 and budget.pixels > 0
    spent = ExtractionBudget(ExtractionLimits(max_frames=1))
    spent.spend_frame(1, 1, "an earlier attachment")
    with pytest.raises(SheafError) as caught:
        await ocr.recognise(image, budget=spent)
    assert caught.value.kind is ErrorKind.TOO_LARGE
