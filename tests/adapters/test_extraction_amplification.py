"""Amplification inside containers and images (issue 30): what extraction produces is
budgeted per document, a part listed again is read once, cells are capped in every
format, every frame is checked before it is decoded, and frames reach OCR one at a
time. The full-size inputs run in child processes (slow): peak memory and time bounded."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr
from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.domain.document.extraction_budget import ExtractionBudget, ExtractionLimits
from sheaf.domain.errors import ErrorKind, SheafError
from tests import amplification_inputs as inputs
from tests.child_process_usage import run_sheaf
from tests.office_fixtures import pptx_bytes

PEAK_MB = 300
SECONDS = 30


def test_the_budget_refuses_past_each_total_and_names_what_was_read() -> None:
    budget = ExtractionBudget(ExtractionLimits(max_decoded_bytes=10, max_characters=5,
                                               max_cells=2, max_cell_characters=3,
                                               max_frame_pixels=100, max_pixels=150,
                                               max_frames=5))
    budget.spend_bytes(10, "part a")
    with pytest.raises(SheafError) as too_many_bytes:
        budget.spend_bytes(1, "part b")
    assert too_many_bytes.value.kind is ErrorKind.TOO_LARGE
    assert "part b" in too_many_bytes.value.message
    assert budget.cell_text("abcdef") == "abc"
    with pytest.raises(SheafError) as too_many_characters:
        budget.cell_text("xyz")
    assert too_many_characters.value.kind is ErrorKind.TOO_LARGE
    budget.spend_frame(10, 10, "frame 1")
    with pytest.raises(SheafError) as bomb:
        budget.spend_frame(11, 10, "frame 2")
    assert bomb.value.kind is ErrorKind.UNSAFE_CONTENT and "frame 2" in bomb.value.message
    with pytest.raises(SheafError) as too_many_pixels:
        budget.spend_frame(10, 6, "frame 3")
    assert too_many_pixels.value.kind is ErrorKind.TOO_LARGE


def test_a_slide_listed_many_times_is_read_once() -> None:
    deck = inputs.pptx_one_slide_listed(times=40, slide_bytes=20_000)
    document = PptxExtractor().extract_sync(deck, "/tmp/listed.pptx")
    assert document.text.count("again and again, read once more by the extractor 7\n") == 1
    assert document.text.count("\n# Slide") + document.text.startswith("# Slide") == 1


def test_notes_shared_by_every_slide_are_read_once() -> None:
    deck = inputs.pptx_shared_notes(slides=30, notes_bytes=10_000)
    document = PptxExtractor().extract_sync(deck, "/tmp/notes.pptx")
    assert document.text.count("one part read for each slide 3\n") == 1
    assert "Slide 30" in document.text


def test_the_text_a_deck_produces_is_budgeted() -> None:
    limits = ExtractionLimits(max_characters=40)
    with pytest.raises(SheafError) as caught:
        PptxExtractor(extraction_limits=limits).extract_sync(pptx_bytes(), "/tmp/d.pptx")
    assert caught.value.kind is ErrorKind.TOO_LARGE and "characters" in caught.value.message


def test_one_shared_string_behind_many_cells_is_budgeted_as_it_is_read() -> None:
    book = inputs.xlsx_one_string_many_cells(cells=200, string_characters=40_000)
    limits = ExtractionLimits(max_characters=1_000_000)
    with pytest.raises(SheafError) as caught:
        XlsxExtractor(extraction_limits=limits).extract_sync(book, "/tmp/echo.xlsx")
    assert caught.value.kind is ErrorKind.TOO_LARGE and "Echo" in caught.value.message


def test_cells_are_cut_to_the_cell_cap_in_every_office_format() -> None:
    cap = ExtractionLimits().max_cell_characters
    docx = DocxExtractor().extract_sync(inputs.docx_huge_cell(100_000), "/tmp/cell.docx")
    table = next(b for b in docx.blocks if b.kind.value == "table")
    assert max(len(cell) for row in table.draft.rows for cell in row) == cap
    book = inputs.xlsx_one_string_many_cells(cells=100, string_characters=40_000)
    xlsx = XlsxExtractor().extract_sync(book, "/tmp/echo.xlsx")
    rows = [b.draft.rows for b in xlsx.blocks if b.kind.value == "table"]
    assert max(len(cell) for table_rows in rows for row in table_rows for cell in row) == cap


def test_twenty_thousand_nested_content_controls_are_read() -> None:
    document = DocxExtractor().extract_sync(inputs.docx_nested_content_controls(20_000),
                                            "/tmp/deep.docx")
    assert "The innermost paragraph." in document.text
    runs = DocxExtractor().extract_sync(inputs.docx_nested_runs(20_000), "/tmp/runs.docx")
    assert "Deep words." in runs.text


def _engine(**limits: int) -> TesseractOcr:
    return TesseractOcr(extraction_limits=ExtractionLimits(**limits))


def test_frames_that_add_up_past_the_budget_are_refused_before_any_is_decoded() -> None:
    gif = inputs.gif_frames(frames=300)  # 300 frames of an 8000 x 8000 canvas
    with pytest.raises(SheafError) as caught:
        next(TesseractOcr().page_images(gif))
    assert caught.value.kind is ErrorKind.TOO_LARGE and "frame" in caught.value.message
    tiff = inputs.tiff_frames(frames=5, side=1_000)
    with pytest.raises(SheafError) as in_tiff:
        next(_engine(max_pixels=4_500_000).page_images(tiff))
    assert in_tiff.value.kind is ErrorKind.TOO_LARGE and "frame 5" in in_tiff.value.message


def test_every_frame_is_held_to_the_pixel_cap_not_only_the_first() -> None:
    tiff = inputs.tiff_small_then_huge(side=3_000)
    with pytest.raises(SheafError) as caught:
        list(TesseractOcr(max_pixels=1_000_000).page_images(tiff))
    assert caught.value.kind is ErrorKind.UNSAFE_CONTENT
    assert "frame 2" in caught.value.message


def test_frames_are_decoded_one_at_a_time() -> None:
    """The first frame comes out before a damaged third one is decoded (all frames used
    to be decoded, and held, before OCR started)."""
    from PIL import Image

    frames = [Image.new("L", (200, 200), 255) for _ in range(3)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "TIFF", save_all=True, compression="tiff_lzw",
                   append_images=frames[1:])
    body = bytearray(buffer.getvalue())
    probe = Image.open(io.BytesIO(bytes(body)))
    probe.seek(2)
    offset = probe.tag_v2[273][0]  # StripOffsets: where the third frame's pixels start
    length = probe.tag_v2[279][0]
    body[offset:offset + length] = b"\xff" * length
    images = TesseractOcr().page_images(bytes(body))
    number, png, width, height = next(images)
    assert (number, width, height) == (1, 200, 200) and png.startswith(b"\x89PNG")
    with pytest.raises(SheafError) as caught:
        list(images)
    assert caught.value.kind is ErrorKind.CORRUPT


_FULL_SIZE = {
    "pptx-one-slide-250-times.pptx": inputs.pptx_one_slide_listed,
    "pptx-300-slides-one-notes.pptx": inputs.pptx_shared_notes,
    "xlsx-one-string-40k-cells.xlsx": inputs.xlsx_one_string_many_cells,
    "docx-20k-content-controls.docx": inputs.docx_nested_content_controls,
    "docx-200k-character-cell.docx": inputs.docx_huge_cell,
    "tiff-40-frames-8000px.tiff": inputs.tiff_frames,
    "tiff-small-then-30000px.tiff": inputs.tiff_small_then_huge,
}


def _generate_in_child(function: str, path: Path) -> None:
    """Generate an input in a child interpreter: a large image generated here would make
    this process large, and Linux reports a forked child's peak as at least the memory
    of the process it was forked from."""
    program = ("import sys; from tests import amplification_inputs as a; "
               "open(sys.argv[2], 'wb').write(getattr(a, sys.argv[1])())")
    subprocess.run([sys.executable, "-c", program, function, str(path)], check=True,
                   cwd=Path(__file__).resolve().parents[2])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_FULL_SIZE))
def test_full_size_amplification_inputs_stay_within_memory_and_time(
        name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    _generate_in_child(_FULL_SIZE[name].__name__, path)
    run = run_sheaf(["extract", str(path), "--format", "json"], timeout=SECONDS * 2)
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.outcome in ("ok", "too_large", "unsafe_content"), run.stderr[-500:]
    assert run.peak_mb <= PEAK_MB, f"{name}: peak {run.peak_mb:.0f} MB"
    assert run.seconds <= SECONDS, f"{name}: {run.seconds:.1f} s"


@pytest.mark.slow
def test_a_slide_listed_250_times_does_not_grow_the_store(tmp_path: Path) -> None:
    path = tmp_path / "listed.pptx"
    _generate_in_child("pptx_one_slide_listed", path)
    store = tmp_path / "store.duckdb"
    run = run_sheaf(["ingest", str(path)], timeout=SECONDS * 2,
                    environment={"SHEAF_STORE": str(store)})
    assert run.returncode == 0, run.stderr[-1000:]
    assert run.peak_mb <= PEAK_MB and run.seconds <= SECONDS
    stored = sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file()
                 and f != path)
    assert stored < 40_000_000, f"the store holds {stored} bytes for a 1 MB slide"


@pytest.mark.slow
def test_a_message_whose_attachments_together_pass_the_budget_is_too_large(
        tmp_path: Path) -> None:
    # Each attachment is a quarter of one document's budget; the message is one document.
    path = tmp_path / "log.eml"
    _generate_in_child("eml_attachments_past_the_budget", path)
    assert path.stat().st_size < 20_000_000
    run = run_sheaf(["extract", str(path), "--format", "json"], timeout=SECONDS * 2)
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.outcome == "too_large", run.stderr[-500:]
    assert "log-6.docx" in run.stderr and "attachments" in run.stderr, run.stderr[-500:]
    assert run.peak_mb <= PEAK_MB, f"peak {run.peak_mb:.0f} MB"
