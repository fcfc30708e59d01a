"""Decompression and operator bombs: each ends in a typed error, within bounded memory
and time. Extraction runs in a child process so its peak memory (VmHWM) is its own."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sheaf.adapters.pdf.content_budget import ContentBudget, ContentLimits, inflate_bounded
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from sheaf.domain.errors import ErrorKind, SheafError
from tests.pdf_writer import write_bomb_pdf, write_form_bomb_pdf, write_image_bomb_pdf

pytestmark = pytest.mark.slow

MAX_PEAK_MB = 300
# Generous for a loaded two-core machine; the unbounded extractor took 84 s on the
# operator flood and minutes on the inflation bomb.
MAX_SECONDS = 30

_CHILD = textwrap.dedent(r"""
    import json, re, sys, time
    from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
    from sheaf.domain.errors import SheafError
    data = open(sys.argv[1], "rb").read()
    started = time.monotonic()
    try:
        document = PdfminerExtractor(engine=sys.argv[2]).extract_sync(data)
        outcome = {"kind": None, "chars": len(document.text)}
    except SheafError as exc:
        outcome = {"kind": exc.kind.value, "message": exc.message}
    outcome["seconds"] = time.monotonic() - started
    # VmHWM is this process's own peak: ru_maxrss would carry the parent's over exec.
    status = open("/proc/self/status").read()
    outcome["peak_mb"] = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024
    print(json.dumps(outcome))
""")


def _extract_in_child(path: Path, engine: str = "pdfminer") -> dict[str, object]:
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(path), engine],
                              capture_output=True,
                              text=True, timeout=MAX_SECONDS * 3)
    except subprocess.TimeoutExpired:
        pytest.fail(f"extraction still running after {MAX_SECONDS * 3} s")
    assert done.returncode == 0, done.stderr[-2000:]
    outcome: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return outcome


BOMBS = {
    # 1.04 MB on disk, 1 GiB of content once inflated.
    "inflation_1gib": (b" " * 64, 1 << 30, 1, "too_large"),
    # Eight pages, each under the stream cap, together far over the document cap.
    "inflation_many_streams": (b" " * 64, 24 << 20, 8, "too_large"),
    # About 30 KB on disk: 20 MB of text-showing operators on one page.
    "text_operators_20mb": (b"(a) Tj ", 20 << 20, 1, "too_complex"),
    "text_arrays_20mb": (b"[(ab) -20 (cd)] TJ ", 20 << 20, 1, "too_complex"),
    # Operators that draw nothing, and operators without operands.
    "path_operators_20mb": (b"1 2 m 3 4 l S ", 20 << 20, 1, "too_complex"),
    "empty_text_objects_20mb": (b"BT ET ", 20 << 20, 1, "too_complex"),
    "graphics_state_nesting": (b"q ", 4 << 20, 1, "too_complex"),
}


# PDFium decodes and parses in C++, outside the budget's counting: its engine is held
# to the same outcomes by decoding under the budget before PDFium reads the file.
ENGINES = ["pdfminer", pytest.param("pdfium", marks=pytest.mark.skipif(
    not pdfium_available(), reason="the pdfium extra is not installed"))]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bomb_ends_in_a_typed_error_within_memory_and_time(name: str, engine: str,
                                                           tmp_path: Path) -> None:
    unit, size, pages, kind = BOMBS[name]
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(write_bomb_pdf(unit, size, pages=pages))
    outcome = _extract_in_child(path, engine)
    assert outcome["kind"] == kind, outcome
    assert float(str(outcome["peak_mb"])) <= MAX_PEAK_MB, outcome
    assert float(str(outcome["seconds"])) <= MAX_SECONDS, outcome


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("prefix", "unit"), [(b"BT /F1 12 Tf 72 700 Td ", b"(a) Tj "),
                                              (b"", b"1 2 m 3 4 l S ")])
def test_a_flood_inside_a_form_is_counted_on_the_page_that_draws_it(
        prefix: bytes, unit: bytes, engine: str, tmp_path: Path) -> None:
    path = tmp_path / "form.pdf"
    # 1.5 MB: under the operation limit, over the glyphs and shapes a page may draw.
    path.write_bytes(write_form_bomb_pdf(unit, 3 << 19, prefix))
    outcome = _extract_in_child(path, engine)
    assert outcome["kind"] == "too_complex", outcome
    assert float(str(outcome["peak_mb"])) <= MAX_PEAK_MB, outcome


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gigabyte_image_is_neither_decoded_nor_refused(engine: str, tmp_path: Path) -> None:
    # Neither engine decodes pixels to read text, so an image's size is no bomb.
    path = tmp_path / "image.pdf"
    path.write_bytes(write_image_bomb_pdf(32768))
    outcome = _extract_in_child(path, engine)
    assert outcome["kind"] is None, outcome
    assert float(str(outcome["peak_mb"])) <= MAX_PEAK_MB, outcome


def test_a_large_ordinary_stream_under_the_limits_is_read() -> None:
    limits = ContentLimits(max_stream_bytes=1 << 20)
    budget = ContentBudget(limits, deadline=float("inf"))
    data = b"BT (x) Tj ET " * 50_000
    import zlib

    assert inflate_bounded(zlib.compress(data), budget.stream_room()) == data
    budget.spend(len(data))
    with pytest.raises(SheafError) as raised:
        inflate_bounded(zlib.compress(data * 2), budget.stream_room())
    assert raised.value.kind is ErrorKind.TOO_LARGE


def test_a_corrupt_deflate_tail_keeps_what_decoded() -> None:
    import zlib

    data = b"0 0 m 10 10 l S " * 1000
    packed = zlib.compress(data)
    assert inflate_bounded(packed[:-20] + b"\xff" * 20, 1 << 20) == data[:len(
        inflate_bounded(packed[:-20] + b"\xff" * 20, 1 << 20))]
    assert len(inflate_bounded(packed[:-20], 1 << 20)) > len(data) // 2
