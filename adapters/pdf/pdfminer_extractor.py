"""The PDF extractor port over pikepdf (open, repair, decrypt) and pdfminer.six (layout)."""

from __future__ import annotations

import time

import anyio

from ...domain.document.document import Document
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.metadata import DocumentMetadata
from ...domain.errors import ErrorKind, SheafError
from ...domain.pdf.aligned_tables import lift_tables, place_by_position, place_tables
from ...domain.pdf.formulas import lift_formulas
from ...domain.pdf.furniture import (
    furniture_blocks,
    is_printer_slug,
    page_furniture,
    place_furniture,
)
from ...domain.pdf.ruled_tables import Rule
from ...domain.pdf.structure import TextBox, join_title, structure_blocks
from ...domain.pdf.title_choice import choose_title
from ..extraction.paused_collection import paused_collection
from .content_budget import ContentLimits
from .layout_reading import read_boxes
from .pdf_opening import open_pdf
from .pdfium_text import pdfium_available

DEFAULT_TIME_BUDGET = 120.0
DEFAULT_MAX_PAGES = 2000


class PdfminerExtractor:
    """Extracts a PDF's text as structured blocks, each knowing its page and box."""

    def __init__(self, *, time_budget: float = DEFAULT_TIME_BUDGET,
                 max_pages: int = DEFAULT_MAX_PAGES,
                 limiter: anyio.CapacityLimiter | None = None,
                 limits: ContentLimits | None = None,
                 engine: str = "pdfminer") -> None:
        """`engine`: "pdfminer" (pure Python, the default) or "pdfium" (glyphs, fonts,
        boxes and rules from PDFium, the `pdfium` extra, into the same layout code);
        "auto" takes PDFium when it is installed. PDFium decodes streams outside the
        content budget, so it is for files that are trusted not to be bombs (ADR-0042)."""
        if engine not in ("pdfminer", "pdfium", "auto"):
            raise ValueError(f"unknown PDF engine {engine!r} (pdfminer, pdfium or auto)")
        if engine == "pdfium" and not pdfium_available():
            raise ValueError("the pdfium engine needs pypdfium2 (install sheaf[pdfium])")
        self.engine = ("pdfium" if engine == "auto" and pdfium_available()
                       else "pdfminer" if engine == "auto" else engine)
        self.time_budget = time_budget
        self.max_pages = max_pages
        self.limits = limits or ContentLimits()
        self._limiter = limiter

    async def extract(self, body: bytes, *, password: str | None = None) -> Document:
        return await anyio.to_thread.run_sync(self.extract_sync, body, password,
                                              limiter=self._limiter)

    def extract_sync(self, body: bytes, password: str | None = None) -> Document:
        with paused_collection():
            return self._extract(body, password)

    def _extract(self, body: bytes, password: str | None) -> Document:
        deadline = time.monotonic() + self.time_budget
        opened = open_pdf(body, password, max_pages=self.max_pages)
        if opened.page_count > self.max_pages:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{opened.page_count} pages, over the {self.max_pages} page limit")
        notes: list[str] = []
        rules: dict[int, list[Rule]] = {}
        stamps: list[TextBox] = []
        boxes = list(read_boxes(opened.data, max_pages=self.max_pages, deadline=deadline,
                                notes=notes, limits=self.limits, rules=rules,
                                stamps=stamps, engine=self.engine))
        if not boxes:
            raise SheafError(ErrorKind.NO_TEXT_LAYER,
                             "no page has a text layer (a scan?); OCR is not supported")
        pages_with_text = {b.page for b in boxes}
        blank = [p for p in range(1, opened.page_count + 1) if p not in pages_with_text]
        read = boxes
        boxes, tables = lift_tables(boxes, rules)
        boxes, formulas = lift_formulas(boxes)
        running: list[TextBox] = []
        drafts = place_tables(place_by_position(
            structure_blocks(boxes, opened.page_count, opened.outline, notes, running),
            formulas), tables)
        if not drafts:
            raise SheafError(ErrorKind.NO_TEXT_LAYER,
                             "the text layer holds no words; OCR is not supported")
        # The title as the first page prints it, mastheads and type labels aside; Info
        # and XMP titles are often another paper's or the journal's, so they only pick
        # among the page's candidates, or stand in when the page has none.
        title = choose_title(boxes, opened.title,
                             venue_hints=(opened.subject or "", *opened.keywords))
        # Running headers and footers on their pages, between blocks; margin stamps and
        # printer's slugs (the same on every page) once each, after the content.
        slugs = [box for box in running if is_printer_slug(box.text)]
        on_pages = page_furniture([box for box in running if box not in slugs], read)
        drafts = place_furniture(join_title(drafts, title), on_pages, opened.page_count)
        drafts += furniture_blocks(stamps + slugs)
        title = title or opened.title or next(
            (d.text for d in drafts if d.kind.value == "heading" and 1 in d.pages), None)
        metadata = DocumentMetadata(title=title, authors=opened.authors, doi=opened.doi,
                                    description=opened.subject, keywords=opened.keywords)
        notes.append(opened.omissions.note(frozenset(blank)))
        return assemble_document(drafts, metadata=metadata, page_count=opened.page_count,
                                 notes=notes, pages_without_text=blank)
