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
from collections.abc import Collection
from typing import Any

import anyio

from ...domain.errors import ErrorKind, SheafError
from ...domain.ocr.recognised_text import OcrPage, OcrWord, best_reading, looks_scattered
from ...domain.routing.routing import has_pdf_magic

INSTALL_HINT = ("OCR needs the Tesseract engine and the `ocr` extra: install the Debian "
                "package tesseract-ocr (apt-get install tesseract-ocr) and "
                "pip install 'sheaf[ocr]'")
DEFAULT_MAX_PIXELS = 120_000_000
"""About a 40 x 30 inch scan at 300 dpi; past it an image is refused as a bomb."""
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
    `limiter`), each held to one thread so pages run side by side instead."""

    def __init__(self, *, languages: str = "eng", binary: str = "tesseract",
                 limiter: anyio.CapacityLimiter | None = None, timeout: float = 120.0,
                 max_pixels: int = DEFAULT_MAX_PIXELS,
                 max_pages: int = DEFAULT_MAX_PAGES) -> None:
        self.languages = languages
        self.binary = binary
        self.timeout = timeout
        self.max_pixels = max_pixels
        self.max_pages = max_pages
        self._limiter = limiter

    def available(self) -> bool:
        """True when the engine and Pillow can be used."""
        try:
            import PIL  # noqa: F401
        except ImportError:
            return False
        return shutil.which(self.binary) is not None

    async def recognise(self, body: bytes, *, pages: Collection[int] | None = None
                        ) -> tuple[OcrPage, ...]:
        executable = shutil.which(self.binary)
        if executable is None:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, INSTALL_HINT)
        images = await anyio.to_thread.run_sync(self._page_images, body, pages,
                                                limiter=self._limiter)
        recognised = []
        for number, png, width, height in images:
            recognised.append(await self._page(executable, number, png, width, height))
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

    def _page_images(self, body: bytes, pages: Collection[int] | None
                     ) -> list[tuple[int, bytes, int, int]]:
        try:
            from PIL import Image
        except ImportError:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, INSTALL_HINT) from None
        # The pixel cap is checked here before each decode, not through Pillow's global
        # MAX_IMAGE_PIXELS, which would change every other user of Pillow in the process.
        if has_pdf_magic(body[:2048]):
            frames = self._pdf_images(body, pages)
        else:
            frames = self._image_frames(body, Image)
        out = []
        for number, image in frames:
            converted = image if image.mode in ("L", "RGB", "1") else image.convert("RGB")
            converted = despeckled(converted)
            buffer = io.BytesIO()
            converted.save(buffer, "PNG")
            out.append((number, buffer.getvalue(), image.width, image.height))
        return out

    def _image_frames(self, body: bytes, image_module: Any) -> list[tuple[int, Any]]:
        from PIL import ImageSequence, UnidentifiedImageError

        try:
            image = image_module.open(io.BytesIO(body))
            if image.width * image.height > self.max_pixels:  # checked before decoding
                raise SheafError(ErrorKind.UNSAFE_CONTENT,
                                 f"the image is {image.width} x {image.height} pixels, over "
                                 f"the {self.max_pixels} pixel limit (a decompression bomb?)")
            frames = []
            for number, frame in enumerate(ImageSequence.Iterator(image), 1):
                if number > self.max_pages:
                    raise SheafError(ErrorKind.TOO_LARGE,
                                     f"the image has over {self.max_pages} frames")
                frame.load()
                frames.append((number, frame.copy()))
            return frames
        except image_module.DecompressionBombError as exc:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"the image is too large to decode safely: {exc}") from None
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"unreadable image: {exc}") from None

    def _pdf_images(self, body: bytes, pages: Collection[int] | None) -> list[tuple[int, Any]]:
        import pikepdf
        from pikepdf import PdfImage
        from PIL import Image

        frames = []
        try:
            with pikepdf.open(io.BytesIO(body)) as pdf:
                wanted = sorted(pages) if pages is not None else range(1, len(pdf.pages) + 1)
                for number in list(wanted)[:self.max_pages]:
                    if not 1 <= number <= len(pdf.pages):
                        continue
                    page = pdf.pages[number - 1]
                    # get_images (pikepdf 10) also looks inside form XObjects.
                    found = page.get_images() if hasattr(page, "get_images") else page.images
                    images = list(found.values())
                    if not images:
                        continue
                    largest = max(images, key=lambda s: int(s.get("/Width", 0))
                                  * int(s.get("/Height", 0)))
                    pixels = int(largest.get("/Width", 0)) * int(largest.get("/Height", 0))
                    if pixels > self.max_pixels:
                        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                                         f"page {number}'s image has {pixels} pixels, over "
                                         f"the {self.max_pixels} pixel limit")
                    frames.append((number, PdfImage(largest).as_pil_image()))
        except Image.DecompressionBombError as exc:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"a page image is too large to decode safely: {exc}") from None
        except (pikepdf.PdfError, OSError, ValueError, NotImplementedError) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"could not take the page images: {exc}") \
                from None
        return frames


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
