"""A running budget of what extracting one document produces.

Container checks bound what an archive's members inflate to, but not what an extractor
builds from them: one slide listed 250 times, one shared string behind two million
cells, a 150 KB image with five hundred full-size frames. Those are amplifications of
work, not of input, so they are counted where the work happens, as a running total per
document, and refused the moment the total passes its limit (never after the work is
done). Every extractor (Office, EPUB, OCR, and new readers) takes one `ExtractionBudget`
per document and spends from it; a document made of documents (an email and its
attachments) hands its one budget to each reader in turn:

    budget = ExtractionBudget(limits)
    budget.spend_bytes(len(part), part_name)      # each decode of a part
    text = budget.cell_text(raw_cell)             # each table cell
    budget.spend_characters(len(text), where)     # text kept for the document
    budget.spend_frame(width, height, where)      # each image frame or page, before decoding
    drafts = budget.take(drafts, where)           # blocks: characters and cells, cells cut
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ..errors import ErrorKind, SheafError
from .document import BlockDraft

MIB = 1024 * 1024


@attrs.frozen
class ExtractionLimits:
    """What one document's extraction may produce, in total."""

    max_decoded_bytes: int = 256 * MIB
    """Bytes decoded from parts, members and streams, counted at every decode (a part read
    twice counts twice): the same cap as a container's total inflated bytes."""
    max_characters: int = 16_000_000
    """Characters of text kept for the document: about eight times the longest novels,
    so a real book fits and a listing of one slide a thousand times does not."""
    max_cells: int = 2_000_000
    """Table cells across every table of the document (the spreadsheet cap)."""
    max_cell_characters: int = 32_767
    """Characters of one table cell: Excel's own cap; past it a cell is cut."""
    max_frame_pixels: int = 64_000_000
    """Pixels of one image frame or scanned page: a letter page at 900 dpi. Decoding it
    for OCR holds a few bytes per pixel, so this bounds the memory one frame takes."""
    max_pixels: int = 2_000_000_000
    """Pixels of every frame and page together: about 230 letter pages at 300 dpi, and
    at OCR's pace well over the time one document may take."""
    max_frames: int = 500
    """Image frames or pages read by OCR."""


DEFAULT_EXTRACTION_LIMITS = ExtractionLimits()


class ExtractionBudget:
    """The running totals of one document's extraction against its limits. Each `spend_*`
    adds to a total and raises `too_large` once the total is over its limit, naming what
    was being read (the same kind the spreadsheet and page caps always raised); one frame
    past the per-frame pixel cap is `unsafe_content` (a decompression bomb)."""

    def __init__(self, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        self.limits = limits
        self.decoded_bytes = 0
        self.characters = 0
        self.cells = 0
        self.pixels = 0
        self.frames = 0

    @property
    def exhausted(self) -> bool:
        """Whether a total is past its limit: the budget refused, and the document (not
        only the part being read when it refused) is too large."""
        limits = self.limits
        return (self.decoded_bytes > limits.max_decoded_bytes
                or self.characters > limits.max_characters or self.cells > limits.max_cells
                or self.pixels > limits.max_pixels or self.frames > limits.max_frames)

    def spend_bytes(self, count: int, where: str) -> None:
        """Count `count` decoded bytes (one decode of a part, member or stream)."""
        self.decoded_bytes += count
        if self.decoded_bytes > self.limits.max_decoded_bytes:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"decoding {where} takes the document past "
                             f"{self.limits.max_decoded_bytes} decoded bytes (a part read "
                             "over and over, or a container that inflates too far)")

    def spend_characters(self, count: int, where: str) -> None:
        """Count `count` characters of text kept for the document."""
        self.characters += count
        if self.characters > self.limits.max_characters:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{where} takes the document's text past "
                             f"{self.limits.max_characters} characters")

    def spend_cells(self, count: int, where: str) -> None:
        """Count `count` table cells."""
        self.cells += count
        if self.cells > self.limits.max_cells:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{where} takes the document past {self.limits.max_cells} "
                             "table cells")

    def cell_text(self, text: str, where: str = "a table cell") -> str:
        """One cell's text, counted as a cell and as characters, cut to the per-cell cap
        (a cell is never quoted past what a spreadsheet itself would hold)."""
        self.spend_cells(1, where)
        kept = text[:self.limits.max_cell_characters]
        self.spend_characters(len(kept), where)
        return kept

    def spend_frame(self, width: int, height: int, where: str) -> None:
        """Count one image frame or page of `width` x `height` pixels; called before it is
        decoded, so a refused frame costs nothing."""
        pixels = max(width, 0) * max(height, 0)
        if pixels > self.limits.max_frame_pixels:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"{where} is {width} x {height} pixels, over the "
                             f"{self.limits.max_frame_pixels} pixel limit per frame "
                             "(a decompression bomb?)")
        self.frames += 1
        if self.frames > self.limits.max_frames:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{where} takes the document past {self.limits.max_frames} "
                             "frames or pages")
        self.pixels += pixels
        if self.pixels > self.limits.max_pixels:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{where} takes the document past {self.limits.max_pixels} "
                             "pixels in all its frames")

    def take(self, drafts: Iterable[BlockDraft], where: str) -> list[BlockDraft]:
        """`drafts` counted against the budget (their characters, and each table cell as
        `cell_text` counts it), with every table cell cut to the per-cell cap."""
        taken = []
        for draft in drafts:
            self.spend_characters(len(draft.text) + sum(len(i.text) for i in draft.items),
                                  where)
            if draft.rows:
                rows = tuple(tuple(self.cell_text(cell, where) for cell in row)
                             for row in draft.rows)
                if rows != draft.rows:
                    draft = attrs.evolve(draft, rows=rows)
            taken.append(draft)
        return taken
