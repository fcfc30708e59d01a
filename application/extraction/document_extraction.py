"""Extracting bytes already in hand (a local file, an upload) through the same routing rules."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import anyio
import attrs

from ...domain.document.content_source import ContentSource
from ...domain.document.document import BlockDraft, Document
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from ...domain.document.fallback_title import ATTACHMENT_FRAGMENT, with_fallback_title
from ...domain.document.markdown_rendering import assemble_document
from ...domain.errors import ErrorKind, SheafError
from ...domain.mail.mail_message import MailAttachment, parse_mail
from ...domain.ocr.recognised_text import OcrPage, confidence_notes, ocr_blocks, ocr_document
from ...domain.office.sheet_tables import delimited_document
from ...domain.office.zip_container import check_listing, read_zip_listing
from ...domain.routing.media_type import (
    CSV_TYPE,
    DOCX_TYPE,
    EMAIL_TYPE,
    EPUB_TYPE,
    ODT_TYPE,
    PPTX_TYPE,
    RTF_TYPE,
    TSV_TYPE,
    XLSX_TYPE,
)
from ...domain.routing.routing import (
    Route,
    RoutingDecision,
    image_type,
    route_container,
    route_content,
)
from ...domain.text.content_sanity import unreadable_text_reason
from ...domain.text.raw_text import raw_document
from ...domain.text.text_decoding import decode_text
from ..ports.format_extractor import FormatExtractor
from ..ports.html_extractor import HtmlExtractor
from ..ports.ocr_engine import OcrEngine
from ..ports.pdf_extractor import PdfExtractor
from .mail_extraction import mail_document

_FORMATS: dict[Route, tuple[ContentSource, str]] = {
    Route.DOCX: (ContentSource.DOCX, DOCX_TYPE),
    Route.PPTX: (ContentSource.PPTX, PPTX_TYPE),
    Route.XLSX: (ContentSource.SPREADSHEET, XLSX_TYPE),
    Route.EPUB: (ContentSource.EPUB, EPUB_TYPE),
    Route.ODF: (ContentSource.OPENDOCUMENT, ODT_TYPE),
    Route.RTF: (ContentSource.RTF, RTF_TYPE),
}
_READ_AT_HAND = frozenset({Route.HTML, Route.CSV, Route.RAW})
"""Routes whose readers run in the calling thread: what `extract_at_hand` extracts."""
_TEXT_NOT_SPENT = frozenset({Route.PDF, Route.HTML, Route.CSV, Route.RAW, Route.IMAGE})
"""Routes whose readers do not spend the text they produce from a budget handed to them."""
MAX_MAIL_DEPTH = 3
"""Messages forwarded inside messages are read this deep; deeper ones are named only."""


@attrs.frozen
class Extraction:
    """A document, the path that produced it and the routing decision behind it."""

    document: Document
    source: ContentSource
    decision: RoutingDecision
    content_type: str = ""
    """The media type the bytes were read as (found, not merely declared)."""


class DocumentExtraction:
    """Routes bytes by what they are and hands them to the matching extractor.

    `formats` maps the format routes (DOCX, PPTX, XLSX, EPUB, ODF, RTF) to their
    extractors;
    `ocr` reads images, and the pages of PDFs that have no text layer;
    `mail_limits` bound one email message with everything attached to it, one running
    budget that each attachment's reader spends from in turn.
    """

    def __init__(self, html_extractor: HtmlExtractor, pdf_extractor: PdfExtractor, *,
                 formats: Mapping[Route, FormatExtractor] | None = None,
                 ocr: OcrEngine | None = None,
                 mail_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        self._html = html_extractor
        self._pdf = pdf_extractor
        self._formats = dict(formats or {})
        self._ocr = ocr
        self._mail_limits = mail_limits

    @property
    def html(self) -> HtmlExtractor:
        """The HTML extractor, for a resolver that reads fetched pages the same way."""
        return self._html

    @property
    def pdf(self) -> PdfExtractor:
        """The PDF extractor, for a resolver that reads fetched PDFs the same way."""
        return self._pdf

    def route(self, body: bytes, *, declared_type: str | None, location: str,
              strict: bool = True) -> RoutingDecision:
        """The route `body` takes (container members inspected); a typed error when it would
        be refused, or when markup or text bytes are not readable text. What a dry run
        checks without extracting; `strict=False` for fetched web pages (ADR-0004)."""
        decision = route_content(declared_type, body[:4096], location, strict=strict)
        if decision.route is Route.CONTAINER:
            try:
                members = read_zip_listing(body)
                check_listing(members)
            except SheafError as exc:
                raise exc.with_url(location) from None
            decision = route_container(decision, [m.name for m in members])
        if decision.refusal is not None:
            raise SheafError(decision.refusal, decision.reason, url=location)
        if decision.route not in (Route.PDF, Route.IMAGE) and decision.route not in _FORMATS:
            # Markup and plain text only: binary containers are judged by their readers.
            unreadable = unreadable_text_reason(body, decision.media_type.charset)
            if unreadable is not None:
                raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, unreadable, url=location)
        return decision

    async def route_off_loop(self, body: bytes, *, declared_type: str | None, location: str,
                             strict: bool = True) -> RoutingDecision:
        """`route` in a worker thread: its text check reads up to 64 KB a document, per-page
        CPU work that would hold up every other task on the event loop."""
        return await anyio.to_thread.run_sync(functools.partial(
            self.route, body, declared_type=declared_type, location=location, strict=strict))

    async def extract(self, body: bytes, *, declared_type: str | None, location: str,
                      password: str | None = None) -> Extraction:
        """Extract `body`; `declared_type` is a hint the bytes must confirm."""
        decision = await self.route_off_loop(body, declared_type=declared_type,
                                             location=location)
        return await self.extract_routed(body, decision, location, password)

    def extract_at_hand(self, body: bytes, *, declared_type: str | None, location: str
                        ) -> tuple[RoutingDecision, Extraction | None]:
        """`body` routed and, when its route's reader runs in the calling thread (HTML,
        plain text, CSV), extracted, as `extract` would: for a caller already off the
        event loop, which then routes and reads a document in one worker-thread call
        instead of two. The extraction is None on the routes whose readers are
        asynchronous (PDF, images, office formats, mail): `extract_routed(body,
        decision, location, password)` reads those. Raises what `extract` raises."""
        decision = self.route(body, declared_type=declared_type, location=location)
        if decision.route not in _READ_AT_HAND:
            return decision, None
        try:
            extraction = self._read_at_hand(body, decision, location)
        except SheafError as exc:
            raise exc.with_url(location) from None
        return decision, _titled(extraction, decision, location)

    async def extract_routed(self, body: bytes, decision: RoutingDecision, location: str,
                             password: str | None = None, *, depth: int = 0,
                             budget: ExtractionBudget | None = None) -> Extraction:
        """Extract `body` along a route `route` already chose (so bytes are routed once);
        `depth` counts the messages this body is attached inside, `budget` is theirs."""
        try:
            extraction = await self._extract(body, decision, location, password, depth,
                                             budget)
        except SheafError as exc:
            raise exc.with_url(location) from None
        return _titled(extraction, decision, location)

    async def _mail(self, body: bytes, location: str, depth: int,
                    budget: ExtractionBudget) -> Document:
        message = parse_mail(body)

        async def read_html(data: bytes, charset: str | None) -> Document:
            return await self._html.extract(data, url=location, charset=charset)

        async def read_attachment(attachment: MailAttachment) -> Document:
            if attachment.media_type == EMAIL_TYPE and depth + 1 >= MAX_MAIL_DEPTH:
                raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                                 f"a message forwarded more than {MAX_MAIL_DEPTH} deep")
            where = f"{location}#{ATTACHMENT_FRAGMENT}{attachment.name}"
            declared = None if attachment.media_type.startswith("application/octet") \
                else attachment.media_type
            budget.spend_bytes(len(attachment.data), f"attachment {attachment.name}")
            decision = await self.route_off_loop(attachment.data, declared_type=declared,
                                                 location=where)
            found = await self.extract_routed(attachment.data, decision, where,
                                              depth=depth + 1, budget=budget)
            return found.document

        return await mail_document(message, read_html=read_html,
                                   read_attachment=read_attachment, budget=budget)

    async def _extract(self, body: bytes, decision: RoutingDecision, location: str,
                       password: str | None, depth: int = 0,
                       budget: ExtractionBudget | None = None) -> Extraction:
        extraction = await self._extract_one(body, decision, location, password, depth,
                                             budget)
        if budget is not None and decision.route in _TEXT_NOT_SPENT:
            # Readers bounded by limits of their own (HTML, PDF, text, OCR's frames) do
            # not spend their text: it is spent here from the message's running total.
            budget.spend_characters(len(extraction.document.text), location)
        return extraction

    async def _extract_one(self, body: bytes, decision: RoutingDecision, location: str,
                           password: str | None, depth: int,
                           budget: ExtractionBudget | None) -> Extraction:
        if decision.route is Route.PDF:
            document, source = await self._pdf_document(body, password, budget)
            return Extraction(document, source, decision, "application/pdf")
        if decision.route is Route.HTML:
            document = await self._html.extract(body, url=location,
                                                charset=decision.media_type.charset)
            return _html_extraction(document, decision)
        if decision.route is Route.IMAGE:
            found = image_type(body[:16]) or "image"
            if self._ocr is None:
                raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                                 f"{found} needs OCR, and no OCR engine is configured")
            pages = await self._ocr.recognise(body, pages=None, budget=budget)
            return Extraction(ocr_document(pages), ContentSource.OCR, decision, found)
        if decision.route is Route.EMAIL:
            # One running budget for the message and all it carries (forwarded messages
            # included): attachments that each fit their own reader's limits cannot
            # together take the message past them.
            message_budget = budget if budget is not None \
                else ExtractionBudget(self._mail_limits)
            return Extraction(await self._mail(body, location, depth, message_budget),
                              ContentSource.EMAIL, decision, EMAIL_TYPE)
        if decision.route in _FORMATS:
            source, media_type = _FORMATS[decision.route]
            extractor = self._formats.get(decision.route)
            if extractor is None:
                raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                                 f"{decision.reason}, but no {decision.route.value} extractor "
                                 "is configured")
            return Extraction(await extractor.extract(body, location=location, budget=budget),
                              source, decision, media_type)
        return _text_extraction(body, decision, location)

    def _read_at_hand(self, body: bytes, decision: RoutingDecision,
                      location: str) -> Extraction:
        """`_extract_one` on the routes of `_READ_AT_HAND`, in the calling thread."""
        if decision.route is Route.HTML:
            return _html_extraction(self._html.extract_sync(
                body, location, decision.media_type.charset), decision)
        return _text_extraction(body, decision, location)

    async def _pdf_document(self, body: bytes, password: str | None,
                            budget: ExtractionBudget | None = None
                            ) -> tuple[Document, ContentSource]:
        """The PDF's text layer; pages without one are read by OCR when an engine is set.
        Pages that have a text layer are never OCR'd."""
        try:
            document = await self._pdf.extract(body, password=password)
        except SheafError as exc:
            if exc.kind is not ErrorKind.NO_TEXT_LAYER:
                raise
            if self._ocr is None:
                raise SheafError(ErrorKind.NO_TEXT_LAYER,
                                 f"{exc.message}; no OCR engine is configured") from None
            try:
                pages = await self._ocr.recognise(body, pages=None, budget=budget)
            except SheafError as ocr_exc:
                raise SheafError(ErrorKind.NO_TEXT_LAYER,
                                 f"{exc.message}; {ocr_exc.message}") from None
            return ocr_document(pages), ContentSource.OCR
        blank = list(document.pages_without_text)
        if not blank or self._ocr is None:
            return document, ContentSource.PDF
        try:
            pages = await self._ocr.recognise(body, pages=blank, budget=budget)
        except SheafError as exc:
            note = f"ocr: pages {', '.join(map(str, blank))} not read: {exc.message}"
            return attrs.evolve(document, notes=(*document.notes, note)), ContentSource.PDF
        return _with_ocr_pages(document, pages), ContentSource.PDF


def _titled(extraction: Extraction, decision: RoutingDecision, location: str) -> Extraction:
    """The extraction with a title when its reader found none (from its first heading,
    except for sheets, or from `location`)."""
    sheets = decision.route in (Route.XLSX, Route.CSV, Route.ODF)
    return attrs.evolve(extraction, document=with_fallback_title(
        extraction.document, location, first_heading=not sheets))


def _html_extraction(document: Document, decision: RoutingDecision) -> Extraction:
    return Extraction(document, ContentSource.HTML, decision, "text/html")


def _text_extraction(body: bytes, decision: RoutingDecision, location: str) -> Extraction:
    """Plain text, or a CSV or TSV table, read from `body` along `decision`."""
    text = decode_text(body, decision.media_type.charset)
    if decision.route is Route.CSV:
        essence = decision.media_type.essence
        name = location.rstrip("/").rsplit("/", 1)[-1] or "table"
        document = delimited_document(text, name,
                                      delimiter="\t" if essence == TSV_TYPE else None)
        return Extraction(document, ContentSource.SPREADSHEET, decision,
                          essence or CSV_TYPE)
    document = raw_document(text, decision.media_type.essence or "text/plain")
    if not document.text.strip():
        raise SheafError(ErrorKind.EMPTY, "the text is empty")
    return Extraction(document, ContentSource.RAW, decision,
                      decision.media_type.essence or "text/plain")


def _with_ocr_pages(document: Document, pages: tuple[OcrPage, ...]) -> Document:
    """The text layer's blocks with the OCR'd pages' blocks slotted in by page (a block
    without a page stays after the one before it)."""
    recognised = list(pages)
    keyed: list[tuple[int, int, BlockDraft]] = []
    page = 0
    for draft in [b.draft for b in document.blocks] + ocr_blocks(recognised):
        page = min(draft.pages) if draft.pages else page
        keyed.append((page, len(keyed), draft))
    drafts = [draft for _, _, draft in sorted(keyed, key=lambda k: (k[0], k[1]))]
    notes = document.notes
    return assemble_document(drafts, metadata=document.metadata, links=document.links,
                             page_count=document.page_count,
                             notes=[*notes, *confidence_notes(recognised)])
