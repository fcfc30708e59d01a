"""The OCR port over the Tesseract command-line engine (TSV output) and Pillow.

Tesseract's TSV output gives every word with its box, its confidence and its block,
paragraph and line numbers, which is all the domain needs; driving the binary
directly avoids a wrapper dependency (pytesseract does the same through temporary
files). Images are decoded by Pillow under a pixel cap (decompression bombs) and
handed to the engine as PNG on stdin; a scanned PDF page is its largest embedded
image, taken out by pikepdf. Word boxes are in pixels of the image the engine read.
"""

from __future__ import annotations

import io
import os
import shutil
import struct
from collections.abc import Collection, Iterator
from typing import Any

import anyio
import attrs

from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from ...domain.errors import ErrorKind, SheafError
from ...domain.ocr.recognised_text import OcrPage, OcrWord, best_reading, looks_scattered
from ...domain.routing.routing import has_pdf_magic

INSTALL_HINT = ("OCR needs the Tesseract engine and the `ocr` extra: install the Debian "
                "package tesseract-ocr (apt-get install tesseract-ocr) and "
                "pip install 'sheaf[ocr]'")
DEFAULT_MAX_PIXELS = DEFAULT_EXTRACTION_LIMITS.max_frame_pixels
"""A letter page at 900 dpi; past it a frame is refused as a bomb (decoding one frame
for the engine holds a few bytes per pixel)."""
DEFAULT_MAX_PAGES = 500
LAYOUTS = {3: "auto", 4: "single column", 6: "uniform block", 11: "sparse text"}
"""Tesseract's page segmentation modes tried, by the name the notes give them."""
CONFIDENT = 85.0
"""Mean word confidence at which the automatic layout analysis is trusted as it is;
under it the other layouts are tried and the best reading kept."""
SPECKLE_SHARE = 0.02
"""Share of dark pixels with no dark neighbour past which a page is salt-and-pepper
noise. Clean print has almost none (strokes and dots are several pixels), a noisy
scan or fax has many; Tesseract loses a third of the words to such noise."""


class TesseractOcr:
    """Recognises text with the `tesseract` binary, one process per page (bounded by
    `limiter`), each held to one thread so pages run side by side instead.

    Frames and pages are decoded one at a time, each handed to the engine and dropped
    before the next is decoded, and every one is spent from the document's
    `ExtractionBudget` before it is decoded: its own pixels against `max_pixels`, all of
    them against the budget's total and `max_pages` frames. The sizes every frame and
    page declare are summed first, so a file whose frames add up past the budget is
    refused before anything is decoded."""

    def __init__(self, *, languages: str = "eng", binary: str = "tesseract",
                 limiter: anyio.CapacityLimiter | None = None, timeout: float = 120.0,
                 max_pixels: int = DEFAULT_MAX_PIXELS,
                 max_pages: int = DEFAULT_MAX_PAGES,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        self.languages = languages
        self.binary = binary
        self.timeout = timeout
        self.max_pixels = max_pixels
        self.max_pages = max_pages
        self.extraction_limits = attrs.evolve(extraction_limits, max_frame_pixels=max_pixels,
                                              max_frames=max_pages)
        self._limiter = limiter

    def available(self) -> bool:
        """True when the engine and Pillow can be used."""
        try:
            import PIL  # noqa: F401
        except ImportError:
            return False
        return shutil.which(self.binary) is not None

    async def recognise(self, body: bytes, *, pages: Collection[int] | None = None,
                        budget: ExtractionBudget | None = None) -> tuple[OcrPage, ...]:
        executable = shutil.which(self.binary)
        if executable is None:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, INSTALL_HINT)
        if budget is None:
            budget = ExtractionBudget(self.extraction_limits)
        images = self.page_images(body, pages, budget)
        recognised = []
        try:
            while True:
                # Each frame is decoded in a worker thread, read (with the layouts its
                # page needs) and let go before the next is decoded (ADR-0029, 0030).
                image = await anyio.to_thread.run_sync(next, images, None,
                                                       limiter=self._limiter)
                if image is None:
                    break
                number, png, width, height = image
                del image
                recognised.append(await self._page(executable, number, png, width, height))
                del png
        finally:
            images.close()
        return tuple(recognised)

    async def _page(self, executable: str, number: int, png: bytes, width: int,
                    height: int) -> OcrPage:
        """The page read with the layout analysis that suits it: Tesseract's automatic
        one (blocks and columns in reading order) when it reads the page confidently as
        blocks of text; else (forms, ballots, labels, low confidence) the best of it and
        the single column, uniform block and sparse text layouts (`best_reading`)."""
        words = parse_tsv(await self._run(executable, png, 3))
        automatic = OcrPage(number, width, height, words)
        mean = automatic.confidence
        if mean is not None and mean >= CONFIDENT and not looks_scattered(words):
            return automatic
        modes = [3, 4, 6, 11]
        readings = [words]
        for mode in modes[1:]:
            readings.append(parse_tsv(await self._run(executable, png, mode)))
        chosen = best_reading(readings)
        return OcrPage(number, width, height, readings[chosen], LAYOUTS[modes[chosen]])

    async def _run(self, executable: str, png: bytes, mode: int = 3) -> str:
        command = [executable, "stdin", "stdout", "-l", self.languages, "--psm", str(mode),
                   "tsv"]
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            with anyio.fail_after(self.timeout):
                done = await anyio.run_process(command, input=png, check=False,
                                               env=environment)
        except TimeoutError:
            raise SheafError(ErrorKind.TIMEOUT,
                             f"OCR of one page took over {self.timeout:g} s") from None
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            raise SheafError(ErrorKind.CORRUPT, "Tesseract could not read the image: "
                             + (message[-1] if message else f"exit {done.returncode}"))
        return done.stdout.decode("utf-8", errors="replace")

    def page_images(self, body: bytes, pages: Collection[int] | None = None,
                    budget: ExtractionBudget | None = None
                    ) -> Iterator[tuple[int, bytes, int, int]]:
        """(number, PNG, width, height) of each frame or page to recognise, decoded only
        when asked for the next one."""
        try:
            from PIL import Image
        except ImportError:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, INSTALL_HINT) from None
        spent = budget if budget is not None else ExtractionBudget(self.extraction_limits)
        # The pixel cap is checked here before each decode, not through Pillow's global
        # MAX_IMAGE_PIXELS, which would change every other user of Pillow in the process.
        if has_pdf_magic(body[:2048]):
            frames = self._pdf_images(body, pages, spent)
        else:
            frames = self._image_frames(body, Image, spent)
        return _as_png(frames)

    def _image_frames(self, body: bytes, image_module: Any, budget: ExtractionBudget
                      ) -> Iterator[tuple[int, Any]]:
        from PIL import UnidentifiedImageError

        try:
            with image_module.open(io.BytesIO(body)) as image:
                declared = _declared_frames(image, budget.limits.max_frames)
                several = len(declared) > 1
                check_declared([(f"frame {n} of the image" if several else "the image", w, h)
                                for n, (w, h) in enumerate(declared, 1)], budget.limits)
                for number in range(1, len(declared) + 1):
                    image.seek(number - 1)
                    # Checked again on the frame itself, before it is decoded.
                    budget.spend_frame(image.width, image.height,
                                       f"frame {number} of the image"
                                       if len(declared) > 1 else "the image")
                    image.load()
                    yield number, image
        except image_module.DecompressionBombError as exc:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"the image is too large to decode safely: {exc}") from None
        except (UnidentifiedImageError, *_MALFORMED) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"unreadable image: {exc}") from None

    def _pdf_images(self, body: bytes, pages: Collection[int] | None,
                    budget: ExtractionBudget) -> Iterator[tuple[int, Any]]:
        import pikepdf
        from pikepdf import PdfImage
        from PIL import Image

        try:
            with pikepdf.open(io.BytesIO(body)) as pdf:
                wanted = sorted(pages) if pages is not None else range(1, len(pdf.pages) + 1)
                chosen = []
                for number in list(wanted)[:self.max_pages]:
                    if not 1 <= number <= len(pdf.pages):
                        continue
                    page = pdf.pages[number - 1]
                    # get_images (pikepdf 10) also looks inside form XObjects.
                    found = page.get_images() if hasattr(page, "get_images") else page.images
                    images = list(found.values())
                    if images:
                        chosen.append((number, max(images, key=_declared_pixels)))
                check_declared([(f"page {n}'s image", int(i.get("/Width", 0)),
                                 int(i.get("/Height", 0))) for n, i in chosen], budget.limits)
                for number, largest in chosen:
                    budget.spend_frame(int(largest.get("/Width", 0)),
                                       int(largest.get("/Height", 0)), f"page {number}'s image")
                    yield number, PdfImage(largest).as_pil_image()
        except Image.DecompressionBombError as exc:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"a page image is too large to decode safely: {exc}") from None
        except (pikepdf.PdfError, OSError, ValueError, NotImplementedError) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"could not take the page images: {exc}") \
                from None


# What Pillow's decoders raise on a malformed file, besides OSError: the mutation fuzz
# (bench/container_mutations.py) found TypeError ("Missing dimensions") on TIFF headers.
_MALFORMED = (OSError, ValueError, SyntaxError, EOFError, TypeError, IndexError, KeyError,
              struct.error, ZeroDivisionError)


def _as_png(frames: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, bytes, int, int]]:
    """Each frame as the PNG the engine reads; the decoded frame is dropped once encoded."""
    try:
        for number, image in frames:
            converted = image if image.mode in ("L", "RGB", "1") else image.convert("RGB")
            converted = despeckled(converted)
            buffer = io.BytesIO()
            converted.save(buffer, "PNG")
            width, height = image.width, image.height
            del converted, image
            yield number, buffer.getvalue(), width, height
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()


def _declared_frames(image: Any, max_frames: int) -> list[tuple[int, int]]:
    """The size of every frame, read without decoding any: a TIFF's directories each
    name their own; other formats' frames share the canvas size. Past `max_frames`
    frames the sizes are not read (the count alone refuses the file)."""
    count = int(getattr(image, "n_frames", 1))
    if image.format != "TIFF" or count == 1 or count > max_frames:
        return [image.size] * count
    sizes = []
    for index in range(count):
        image.seek(index)  # a TIFF seek reads the frame's directory, not its pixels
        sizes.append(image.size)
    image.seek(0)
    return sizes


def _declared_pixels(image: Any) -> int:
    return int(image.get("/Width", 0)) * int(image.get("/Height", 0))


def check_declared(frames: list[tuple[str, int, int]], limits: ExtractionLimits) -> None:
    """Refuse frames (each named, with its declared width and height) whose sizes alone
    take a document past its budget: nothing is decoded first."""
    if len(frames) > limits.max_frames:
        raise SheafError(ErrorKind.TOO_LARGE,
                         f"{len(frames)} frames or pages, over the {limits.max_frames} "
                         "frame limit")
    trial = ExtractionBudget(limits)
    for name, width, height in frames:
        trial.spend_frame(width, height, name)


def parse_tsv(tsv: str) -> tuple[OcrWord, ...]:
    """The words of Tesseract's TSV output (level 5 rows with text), in its order."""
    words = []
    lines = tsv.splitlines()
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) < 12 or fields[0] != "5":
            continue
        text = fields[11].strip()
        if not text:
            continue
        try:
            block, paragraph, line_number = int(fields[2]), int(fields[3]), int(fields[4])
            left, top, width, height = (int(v) for v in fields[6:10])
            confidence = float(fields[10])
        except ValueError:
            continue
        words.append(OcrWord(text, (left, top, left + width, top + height),
                             max(confidence, 0.0), (block, paragraph), line_number))
    return tuple(words)


def despeckled(image: Any) -> Any:
    """The image through a 3x3 median filter when it is speckled, else unchanged: the
    filter restores noisy scans (word recall 0.66-0.93 to 0.98-1.0 on rendered pages
    with 20,000 flipped pixels) but would thin one-pixel strokes of clean low-resolution
    scans, so it is applied only where isolated dark pixels show noise."""
    import numpy as np
    from PIL import ImageFilter

    gray = image.convert("L")
    dark = np.asarray(gray) < 128
    if dark.shape[0] < 3 or dark.shape[1] < 3 or not dark.any():
        return image
    padded = np.pad(dark, 1)
    neighbours = sum(padded[1 + dy:padded.shape[0] - 1 + dy, 1 + dx:padded.shape[1] - 1 + dx]
                     .astype(np.uint8) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                     if dy or dx)
    isolated = int(np.count_nonzero(dark & (neighbours == 0)))
    if isolated <= SPECKLE_SHARE * int(np.count_nonzero(dark)):
        return image
    return gray.filter(ImageFilter.MedianFilter(3))
