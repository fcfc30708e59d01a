"""Random mutations of small valid DOCX, PPTX, XLSX, EPUB (2 and 3) and OpenDocument
files (charts and equations among them), of the amplification shapes (a slide listed
many times, one string behind many cells, nested content controls) and of PNG, TIFF and
GIF images (several frames): every case must end as a Document (or decoded frames) or a
typed error, never a traceback or a hang, and the process's peak memory is printed (and
bounded with --max-peak-mb).

    .venv/bin/python -P bench/container_mutations.py [--cases 2000] [--seed 1]
                                                     [--max-peak-mb 300]

Mutations: bytes flipped anywhere (mostly damaging the deflate streams and the
directory, or an image's headers), members replaced by XML fragments cut at random
points (reaching the readers' own parsing with valid archives), and for images a size
field or frame count set to a random large value. Images are decoded the way OCR
decodes them (every frame, one at a time, under the extraction budget), without running
the engine. `make test-slow` runs 3,000 cases in a child process and checks its peak.
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import struct
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sheaf.adapters.ocr.tesseract_ocr import TesseractOcr
from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.epub_extractor import EpubExtractor
from sheaf.adapters.office.odf_extractor import OdfExtractor
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.domain.document.extraction_budget import ExtractionLimits
from sheaf.domain.errors import SheafError
from tests import amplification_inputs as amplification
from tests.office_fixtures import (
    chart_pptx_bytes,
    docx_bytes,
    epub2_bytes,
    epub_bytes,
    equation_docx_bytes,
    odp_bytes,
    ods_bytes,
    odt_bytes,
    pptx_bytes,
    rewrite_zip,
    xlsx_bytes,
)

_DOCX, _PPTX, _XLSX = DocxExtractor(), PptxExtractor(), XlsxExtractor()
_EPUB, _ODF = EpubExtractor(), OdfExtractor()
SEEDS = {"docx": (_DOCX, docx_bytes()), "pptx": (_PPTX, pptx_bytes()),
         "xlsx": (_XLSX, xlsx_bytes()), "epub": (_EPUB, epub_bytes()),
         "epub2": (_EPUB, epub2_bytes()),
         "docx-equations": (_DOCX, equation_docx_bytes()),
         "pptx-chart": (_PPTX, chart_pptx_bytes()),
         "odt": (_ODF, odt_bytes()), "ods": (_ODF, ods_bytes()), "odp": (_ODF, odp_bytes()),
         "pptx-listed": (_PPTX, amplification.pptx_one_slide_listed(20, 20_000)),
         "pptx-notes": (_PPTX, amplification.pptx_shared_notes(20, 20_000)),
         "xlsx-one-string": (_XLSX, amplification.xlsx_one_string_many_cells(300, 2_000)),
         "docx-nested": (_DOCX, amplification.docx_nested_content_controls(2_000))}


def _images() -> dict[str, bytes]:
    from PIL import Image, ImageDraw

    frames = []
    for n in range(3):
        frame = Image.new("L", (240, 160), 255)
        ImageDraw.Draw(frame).text((10, 10 + 30 * n), f"frame {n}", fill=0)
        frames.append(frame)
    png, tiff, gif = io.BytesIO(), io.BytesIO(), io.BytesIO()
    frames[0].save(png, "PNG")
    frames[0].save(tiff, "TIFF", save_all=True, append_images=frames[1:],
                   compression="tiff_lzw")
    frames[0].save(gif, "GIF", save_all=True, append_images=frames[1:])
    return {"png": png.getvalue(), "tiff": tiff.getvalue(), "gif": gif.getvalue(),
            "gif-canvas": amplification.gif_frames(frames=40, side=600)}


IMAGES = _images()
# Budgets scaled to the seeds (a few hundred thousand pixels each), so a mutation that
# claims a larger frame meets the same refusals a full-size file meets, in milliseconds.
_OCR = TesseractOcr(max_pixels=4_000_000, extraction_limits=ExtractionLimits(
    max_pixels=20_000_000))


def _decoded_frames(body: bytes, _: str) -> int:
    return sum(1 for _ in _OCR.page_images(body))


def _mutated_image(body: bytes, rng: random.Random) -> bytes:
    """Flipped bytes, or a width, height or count field made large."""
    data = bytearray(body)
    if rng.random() < 0.6:
        for _ in range(rng.randint(1, 8)):
            # Headers and directories are near the start (GIF, PNG) or anywhere (TIFF).
            where = rng.randrange(min(len(data), 400)) if rng.random() < 0.5 \
                else rng.randrange(len(data))
            data[where] = rng.randrange(256)
        return bytes(data)
    big = rng.choice([0, 1, 0xFFFF, rng.randrange(1 << 16), 1 << 15])
    if data[:3] == b"GIF":
        field = rng.choice([6, 8])
        data[field:field + 2] = struct.pack("<H", big)
    elif data[:4] == b"\x89PNG":
        field = rng.choice([16, 20])
        data[field:field + 4] = struct.pack(">I", big * rng.choice([1, 1000]))
    else:
        at = rng.randrange(8, max(9, len(data) - 4))
        data[at:at + 4] = struct.pack("<I", big)
    return bytes(data)


def mutate(body: bytes, rng: random.Random) -> bytes:
    """Flipped bytes, or one XML member cut short or with a span of it shuffled."""
    if rng.random() < 0.5:
        data = bytearray(body)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        names = [n for n in archive.namelist() if n.endswith((".xml", ".rels", ".xhtml",
                                                              ".opf", ".ncx"))]
        name = rng.choice(names)
        xml = archive.read(name)
    cut = rng.randrange(len(xml))
    if rng.random() < 0.5:
        changed = xml[:cut]
    else:
        start, end = sorted((cut, rng.randrange(len(xml))))
        middle = bytearray(xml[start:end])
        rng.shuffle(middle)
        changed = xml[:start] + bytes(middle) + xml[end:]
    return rewrite_zip(body, {name: changed})


def run(cases: int, seed: int, max_peak_mb: float | None = None) -> int:
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    failures = 0
    started = time.perf_counter()
    kinds = sorted(SEEDS) + sorted(f"image:{name}" for name in IMAGES)
    for index in range(cases):
        kind = rng.choice(kinds)
        read: Callable[[bytes, str], object]
        if kind.startswith("image:"):
            read, mutated = _decoded_frames, _mutated_image(IMAGES[kind[6:]], rng)
        else:
            extractor, body = SEEDS[kind]
            read, mutated = extractor.extract_sync, mutate(body, rng)
        try:
            read(mutated, f"case-{index}")
            outcomes[f"{kind}: read"] += 1
        except SheafError as exc:
            outcomes[f"{kind}: {exc.kind.value}"] += 1
        except Exception as exc:  # what this benchmark exists to find
            failures += 1
            print(f"case {index} ({kind}): {type(exc).__name__}: {exc}", file=sys.stderr)
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for outcome, count in sorted(outcomes.items()):
        print(f"{outcome:<34} {count}")
    print(f"{cases} cases in {elapsed:.1f} s, {failures} untyped failures, "
          f"peak {peak_mb:.0f} MB")
    if max_peak_mb is not None and peak_mb > max_peak_mb:
        print(f"peak memory {peak_mb:.0f} MB is over {max_peak_mb:.0f} MB", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-peak-mb", type=float, default=None,
                        help="fail when the process's peak memory passes this")
    arguments = parser.parse_args()
    sys.exit(run(arguments.cases, arguments.seed, arguments.max_peak_mb))
