"""Extracting bytes already in hand (a local file, an upload) through the same routing rules."""

from __future__ import annotations

import attrs

from sheaf.application.ports.html_extractor import HtmlExtractor
from sheaf.application.ports.pdf_extractor import PdfExtractor
from sheaf.domain.content_sanity import unreadable_text_reason
from sheaf.domain.document import Document
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.raw_text import raw_document
from sheaf.domain.resolved_content import ContentSource
from sheaf.domain.routing import Route, RoutingDecision, route_content
from sheaf.domain.text_decoding import decode_text


@attrs.frozen
class Extraction:
    """A document, the path that produced it and the routing decision behind it."""

    document: Document
    source: ContentSource
    decision: RoutingDecision


class DocumentExtraction:
    """Routes bytes by what they are and hands them to the matching extractor."""

    def __init__(self, html_extractor: HtmlExtractor, pdf_extractor: PdfExtractor) -> None:
        self._html = html_extractor
        self._pdf = pdf_extractor

    async def extract(self, body: bytes, *, declared_type: str | None, location: str,
                      password: str | None = None) -> Extraction:
        """Extract `body`; `declared_type` is a hint the bytes must confirm."""
        decision = route_content(declared_type, body[:4096], location)
        if decision.refusal is not None:
            raise SheafError(decision.refusal, decision.reason, url=location)
        if decision.route is Route.PDF:
            try:
                document = await self._pdf.extract(body, password=password)
            except SheafError as exc:
                raise exc.with_url(location) from None
            return Extraction(document, ContentSource.PDF, decision)
        unreadable = unreadable_text_reason(body, decision.media_type.charset)
        if unreadable is not None:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, unreadable, url=location)
        if decision.route is Route.HTML:
            document = await self._html.extract(body, url=location,
                                                charset=decision.media_type.charset)
            return Extraction(document, ContentSource.HTML, decision)
        text = decode_text(body, decision.media_type.charset)
        document = raw_document(text, decision.media_type.essence or "text/plain")
        if not document.text.strip():
            raise SheafError(ErrorKind.EMPTY, "the text is empty", url=location)
        return Extraction(document, ContentSource.RAW, decision)
