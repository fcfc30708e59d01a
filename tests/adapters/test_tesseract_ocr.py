"""OCR through Tesseract on generated scans: mixed PDFs, TIFF frames, JPEG."""

from __future__ import annotations

import io

import pikepdf
import pytest

from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr, parse_tsv
from sheaf.domain.document.resolved_content import ContentSource
from sheaf.entrypoints.api.composition import build_extraction
from tests.office_fixtures import scanned_page, scanned_pdf
from tests.pdf_writer import write_pdf

pytestmark = pytest.mark.anyio
needs_tesseract = pytest.mark.skipif(not TesseractOcr().available(),
                                     reason="Tesseract is not installed")


@needs_tesseract
async def test_a_pdf_with_one_typed_and_one_scanned_page() -> None:
    typed = write_pdf([("h1", "Typed Introduction"),
                       ("p", "This page has a real text layer with words. " * 4)])
    merged = pikepdf.Pdf.open(io.BytesIO(typed))
    scan = pikepdf.Pdf.open(io.BytesIO(scanned_pdf()))
    merged.pages.append(scan.pages[0])
    buffer = io.BytesIO()
    merged.save(buffer)  # while `scan` is still open: the page's objects live in it
    extraction = await build_extraction().extract(buffer.getvalue(), declared_type=None,
                                                  location="/tmp/mixed.pdf")
    document = extraction.document
    assert extraction.source is ContentSource.PDF
    # Only page 2 was recognised; page 1's words come from its text layer.
    assert [n for n in document.notes if n.startswith("ocr_confidence")] == [
        n for n in document.notes if n.startswith("ocr_confidence page 2")]
    assert document.text.index("Typed Introduction") < document.text.index("harbour master")
    assert {b.draft.pages for b in document.blocks} == {(1,), (2,)}


@needs_tesseract
async def test_every_frame_of_a_tiff_is_a_page_and_jpeg_is_read() -> None:
    from PIL import Image

    first = Image.open(io.BytesIO(scanned_page("Frame one holds the opening words.")))
    second = Image.open(io.BytesIO(scanned_page("Frame two holds the closing words.")))
    tiff = io.BytesIO()
    first.save(tiff, "TIFF", save_all=True, append_images=[second])
    pages = await TesseractOcr().recognise(tiff.getvalue())
    assert [p.number for p in pages] == [1, 2]
    assert "closing" in [w.text for w in pages[1].words]
    jpeg = io.BytesIO()
    first.convert("RGB").save(jpeg, "JPEG", quality=85)
    extraction = await build_extraction().extract(jpeg.getvalue(), declared_type=None,
                                                  location="/tmp/a.jpg")
    assert extraction.source is ContentSource.OCR and "opening words" in extraction.document.text
    assert extraction.content_type == "image/jpeg"


async def test_a_missing_engine_names_what_to_install() -> None:
    from sheaf.domain.errors import ErrorKind, SheafError

    with pytest.raises(SheafError) as caught:
        await TesseractOcr(binary="no-such-tesseract").recognise(scanned_page("x"))
    assert caught.value.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "tesseract-ocr" in caught.value.message and "sheaf[ocr]" in caught.value.message


def test_tsv_rows_other_than_words_and_empty_words_are_ignored() -> None:
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\t"
           "height\tconf\ttext\n"
           "4\t1\t1\t1\t1\t0\t10\t10\t100\t20\t-1\t\n"
           "5\t1\t1\t1\t1\t1\t10\t10\t40\t20\t96.5\tHello\n"
           "5\t1\t1\t1\t1\t2\t60\t10\t40\t20\t-1\t \n"
           "5\t1\t1\t1\t1\t3\tx\t10\t40\t20\t90\tbroken\n")
    words = parse_tsv(tsv)
    assert [(w.text, w.box, w.confidence) for w in words] == [("Hello", (10, 10, 50, 30), 96.5)]


def _speckled(png: bytes, flips: int, seed: int) -> object:
    import random

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    pixels = image.load()
    rng = random.Random(seed)
    for _ in range(flips):
        x, y = rng.randrange(image.width), rng.randrange(image.height)
        pixels[x, y] = 0 if pixels[x, y] > 128 else 255
    return image


def _recall(recognised: str, expected: str) -> float:
    remaining = recognised.split()
    hits = 0
    for word in expected.split():
        if word in remaining:
            remaining.remove(word)
            hits += 1
    return hits / len(expected.split())


@pytest.mark.parametrize("size", [24, 28, 40])
def test_only_speckled_pages_are_despeckled(size: int) -> None:
    from sheaf.adapters.ocr.tesseract_ocr import despeckled

    clean = _speckled(scanned_page(size=size), 0, 0)
    assert despeckled(clean) is clean
    noisy = _speckled(scanned_page(size=size), 20_000, size)
    assert despeckled(noisy) is not noisy


@needs_tesseract
@pytest.mark.parametrize(("size", "seed"), [(24, 1), (32, 2)])
async def test_a_speckled_scan_keeps_its_word_recall(size: int, seed: int) -> None:
    from sheaf.domain.ocr.recognised_text import ocr_document
    from tests.office_fixtures import SCANNED_TEXT

    buffer = io.BytesIO()
    _speckled(scanned_page(size=size), 20_000, seed).save(buffer, "PNG")  # type: ignore[attr-defined]
    pages = await TesseractOcr().recognise(buffer.getvalue())
    assert _recall(ocr_document(pages).text, SCANNED_TEXT) >= 0.95


@needs_tesseract
async def test_a_form_is_read_with_the_layout_that_keeps_its_reading_order() -> None:
    from tests.office_fixtures import ballot_page

    extraction = await build_extraction().extract(ballot_page(), declared_type=None,
                                                  location="/tmp/ballot.png")
    document = extraction.document
    text = document.text
    # The automatic analysis puts the title after the candidates and reads the check
    # boxes as letters; the sparse layout reads the form top to bottom.
    assert text.index("OFFICIAL BALLOT") < text.index("Ballot: Harbour Council") \
        < text.index("Ada Ferris") < text.index("Leo Marsh")
    assert "Oo" not in text.split()
    assert "ocr_confidence page 1" in document.notes[0]
    assert "layout: sparse text" in document.notes[0]
    for block in document.blocks:
        assert len(block.draft.word_confidences) == len(block.draft.text.split())
        assert all(0 <= c <= 100 for c in block.draft.word_confidences)


@needs_tesseract
async def test_a_page_of_prose_keeps_the_automatic_layout() -> None:
    pages = await TesseractOcr().recognise(scanned_page())
    assert pages[0].layout == "auto" and pages[0].confidence is not None
