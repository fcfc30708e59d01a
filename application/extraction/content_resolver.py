"""ContentResolver: from a URL to routed, verified and extracted content."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import Literal

import attrs

from ...domain.document.content_source import ContentSource
from ...domain.document.diagnostics import DecisionLog
from ...domain.document.document import Document
from ...domain.document.metadata import merge_metadata
from ...domain.document.resolved_content import ResolvedContent
from ...domain.document.text_limits import MAX_TEXT_CHARACTERS, cut_at_block_boundary
from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.accept_policy import (
    HTML_FIRST,
    PDF_FIRST,
    accept_header_for,
    is_scholarly_host,
)
from ...domain.fetching.retry_after import retry_after_seconds
from ...domain.fetching.url_normalisation import normalise_url
from ...domain.html.full_text import assess_full_text
from ...domain.html.pdf_links import PdfCandidate, pdf_link_candidates
from ...domain.rendering.render_need import RENDER_MODES, RenderMode, render_reason
from ...domain.routing.routing import Route, has_pdf_magic
from ..ports.html_extractor import HtmlExtractor
from ..ports.http_client import HttpClient, HttpResponse
from ..ports.page_renderer import PageRenderer
from ..ports.pdf_extractor import PdfExtractor
from .document_extraction import DocumentExtraction

Preference = Literal["auto", "pdf", "html"]
PREFERENCES: tuple[Preference, ...] = ("auto", "pdf", "html")
MAX_PDF_ATTEMPTS = 3

logger = logging.getLogger("sheaf.resolver")


def error_for_status(response: HttpResponse) -> SheafError | None:
    """The typed error a non-2xx answer means, or None for success."""
    status = response.status
    if 200 <= status < 300:
        return None
    url = response.url
    if status == 404:
        return SheafError(ErrorKind.NOT_FOUND, "the server has no such page", url=url,
                          status=status)
    if status == 410:
        return SheafError(ErrorKind.GONE, "the page was removed", url=url, status=status)
    if status in (401, 402, 403, 451):
        return SheafError(ErrorKind.FORBIDDEN_OR_PAYWALLED,
                          "access refused (login, subscription or block)", url=url, status=status)
    if status == 429:
        retry_after = retry_after_seconds(response.header("retry-after"), datetime.now(UTC))
        hint = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        return SheafError(ErrorKind.RATE_LIMITED, f"too many requests{hint}", url=url,
                          status=status, retry_after=retry_after)
    if status >= 500:
        return SheafError(ErrorKind.SERVER_ERROR, "the server failed", url=url, status=status)
    return SheafError(ErrorKind.HTTP_ERROR, f"unexpected HTTP status {status}", url=url,
                      status=status)


@attrs.define
class FetchedPage:
    """A fetched, not yet extracted, answer for a URL, with the decisions taken so far."""

    url: str
    normalised: str
    response: HttpResponse
    prefer: Preference
    log: DecisionLog
    render: RenderMode = "auto"


class ContentResolver:
    """Fetches a URL and decides, from what the server sent, where its real text lives."""

    def __init__(
        self,
        http: HttpClient,
        html_extractor: HtmlExtractor,
        pdf_extractor: PdfExtractor,
        *,
        max_characters: int = MAX_TEXT_CHARACTERS,
        extraction: DocumentExtraction | None = None,
        renderer: PageRenderer | None = None,
    ) -> None:
        self._http = http
        self._renderer = renderer
        self._html = html_extractor
        self._pdf = pdf_extractor
        self._max_characters = max_characters
        # Bodies that are not web pages (Office files, images, ...) go through the same
        # extraction as local files, with whatever formats it was given.
        self._extraction = extraction or DocumentExtraction(html_extractor, pdf_extractor)

    async def resolve(self, url: str, prefer: Preference = "auto",
                      password: str | None = None, render: RenderMode = "auto"
                      ) -> ResolvedContent:
        """Resolve `url` to extracted content.

        `prefer="auto"` keeps full-text HTML and falls back to the article's PDF only when
        the page is an abstract, landing or paywall page; `"pdf"` tries the PDF whenever the
        page links one; `"html"` never leaves the page.
        """
        return await self.extract(await self.fetch(url, prefer, render=render), password)

    async def fetch(self, url: str, prefer: Preference = "auto", *,
                    validators: tuple[tuple[str, str], ...] = (),
                    render: RenderMode = "auto") -> FetchedPage:
        """Normalise and GET `url`; non-2xx answers and empty bodies are typed errors.
        Ingestion compares the bytes with what it stored before extracting anything.

        With `validators` (If-None-Match, If-Modified-Since) a `304 Not Modified`
        comes back as a page with that status and no body: the caller knows the page."""
        if prefer not in PREFERENCES:
            raise ValueError(f"prefer must be one of {PREFERENCES}, not {prefer!r}")
        if render not in RENDER_MODES:
            raise ValueError(f"render must be one of {RENDER_MODES}, not {render!r}")
        log = DecisionLog()
        normalised = normalise_url(url)
        log.add("normalise", f"{url} -> {normalised}" if normalised != url.strip()
                else "URL already normal")
        accept = {"pdf": PDF_FIRST, "html": HTML_FIRST}.get(prefer) or accept_header_for(
            normalised)
        log.add("accept", f"Accept: {accept}")
        response = await self._fetch(normalised, accept, log, validators)
        if response.status == 304 and validators:
            return FetchedPage(url, normalised, response, prefer, log, render)
        failure = error_for_status(response)
        if failure:
            raise failure
        return FetchedPage(url, normalised, response, prefer, log, render)

    async def extract(self, page: FetchedPage, password: str | None = None) -> ResolvedContent:
        """Route fetched bytes and extract them (following a linked PDF when it is better)."""
        url, normalised, response, log = page.url, page.normalised, page.response, page.log
        try:
            decision = await self._extraction.route_off_loop(
                response.body, declared_type=response.content_type, location=response.url,
                strict=False)
        except SheafError as exc:
            if exc.status is None:
                exc.status = response.status
            raise
        log.add("route", decision.reason)
        if decision.route is Route.HTML:
            return await self._resolve_html(url, normalised, response, decision.media_type.charset,
                                            page.prefer, password, log, page.render)
        extraction = await self._extraction.extract_routed(response.body, decision,
                                                           response.url, password)
        return self._finish(url, normalised, response, extraction.document, extraction.source,
                            log, content_type=extraction.content_type
                            or decision.media_type.essence or "application/pdf")

    async def _resolve_html(self, url: str, normalised: str, response: HttpResponse,
                            charset: str | None, prefer: Preference, password: str | None,
                            log: DecisionLog, render: RenderMode = "auto") -> ResolvedContent:
        html_error: SheafError | None = None
        document: Document | None = None
        try:
            document = await self._html.extract(response.body, url=response.url, charset=charset)
            log.add("html", f"extracted {document.word_count} words, "
                            f"{len(document.headings())} headings")
        except SheafError as exc:
            if exc.kind is not ErrorKind.EMPTY:
                raise
            html_error = exc.with_url(response.url)
            log.add("html", f"no main content: {exc.message}")
        rendered = await self._rendered(response, document, render, log)
        if rendered is not None:
            document, html_error = rendered, None

        candidates = (pdf_link_candidates(document.metadata, document.links, response.url)
                      if document else ())
        log.add("pdf-links", "; ".join(f"{c.url} ({c.reason})" for c in candidates)
                if candidates else "no PDF link found")
        to_try = self._pdf_candidates_to_try(document, candidates, response.url, prefer, log)
        for candidate in to_try[:MAX_PDF_ATTEMPTS]:
            found = await self._try_pdf(candidate, password, log)
            if found is not None:
                pdf_response, pdf_document = found
                metadata = merge_metadata(document.metadata if document else pdf_document.metadata,
                                          pdf_document.metadata)
                pdf_document = attrs.evolve(pdf_document, metadata=metadata)
                return self._finish(url, normalised, response, pdf_document, ContentSource.PDF,
                                    log, content_type="application/pdf",
                                    content_response=pdf_response)
        if document is None:
            assert html_error is not None
            raise html_error
        if to_try:
            log.add("decision", "kept the HTML text: no linked PDF could be used")
        return self._finish(url, normalised, response, document, ContentSource.HTML, log,
                            content_type="text/html")

    async def _rendered(self, response: HttpResponse, document: Document | None,
                        mode: RenderMode, log: DecisionLog) -> Document | None:
        """The page's document as a browser shows it, when the served markup's is thin
        and the page is built by script (or rendering was asked for), and rendering
        gave more; None to keep the served markup's."""
        reason = render_reason(mode, response.body, document.word_count if document else None)
        if reason is None:
            return None
        if self._renderer is None:
            if mode == "always":
                raise SheafError(ErrorKind.CONFIGURATION, "rendering was asked for but no "
                                 "browser is available: install Chromium (apt install "
                                 "chromium) or set SHEAF_CHROMIUM", url=response.url)
            log.add("render", f"not rendered ({reason}): no browser is installed")
            return None
        page = await self._renderer.render(response)
        refused = f", {len(page.refused)} refused" if page.refused else ""
        try:
            shown = await self._html.extract(page.html, url=response.url, charset="utf-8")
        except SheafError as exc:
            if exc.kind is not ErrorKind.EMPTY:
                raise
            log.add("render", f"rendered ({reason}; {page.requests} requests{refused}): "
                              f"still no main content")
            return None
        before = document.word_count if document else 0
        if mode != "always" and shown.word_count <= before:
            log.add("render", f"rendered ({reason}) but kept the served markup: "
                              f"{shown.word_count} words against {before}")
            return None
        log.add("render", f"rendered ({reason}; {page.requests} requests{refused}): "
                          f"{shown.word_count} words against {before} served")
        return attrs.evolve(shown, notes=(*shown.notes, f"rendered in a browser: {reason}"))

    def _pdf_candidates_to_try(self, document: Document | None,
                               candidates: tuple[PdfCandidate, ...], page_url: str,
                               prefer: Preference, log: DecisionLog) -> list[PdfCandidate]:
        if not candidates or prefer == "html":
            if prefer == "html":
                log.add("decision", "prefer=html: the page's text is used")
            return []
        if prefer == "pdf":
            log.add("decision", "prefer=pdf: trying the linked PDF")
            return list(candidates)
        if document is not None:
            assessment = assess_full_text(document)
            if assessment.is_full_text:
                log.add("decision", f"full-text HTML kept over the PDF: {assessment.reason}")
                return []
            log.add("decision", f"HTML is not the full text: {assessment.reason}")
        scholarly = is_scholarly_host(page_url) or bool(
            document and (document.metadata.doi or document.metadata.journal))
        usable = [c for c in candidates if c.strong or scholarly]
        if len(usable) < len(candidates):
            log.add("pdf-links", "ignored PDF-looking links on a page that is not scholarly")
        return usable

    async def _try_pdf(self, candidate: PdfCandidate, password: str | None,
                       log: DecisionLog) -> tuple[HttpResponse, Document] | None:
        try:
            response = await self._http.get(candidate.url, accept=PDF_FIRST)
        except SheafError as exc:
            log.add("pdf", f"PDF link {candidate.url} failed: {exc.kind.value}: {exc.message}")
            return None
        declared = response.content_type or "no content type"
        if not 200 <= response.status < 300:
            log.add("pdf", f"PDF link returned {response.status} {declared}: refused")
            return None
        if not has_pdf_magic(response.body[:2048]):
            log.add("pdf", f"PDF link returned {response.status} {declared}: "
                           "not a PDF (paywall?)")
            return None
        try:
            document = await self._pdf.extract(response.body, password=password)
        except SheafError as exc:
            log.add("pdf", f"PDF from {response.url} unusable: {exc.kind.value}: {exc.message}")
            return None
        if not document.text.strip():
            log.add("pdf", f"PDF from {response.url} gave no text")
            return None
        log.add("pdf", f"using the PDF from {response.url}: {document.word_count} words")
        return response, document

    async def _fetch(self, url: str, accept: str, log: DecisionLog,
                     validators: tuple[tuple[str, str], ...] = ()) -> HttpResponse:
        try:
            response = await self._http.get(url, accept=accept, headers=validators)
        except SheafError as exc:
            raise exc.with_url(url) from None
        hops = f" after {len(response.redirects)} redirect(s)" if response.redirects else ""
        log.add("fetch", f"{response.status} {response.content_type or 'no content type'}, "
                         f"{len(response.body)} bytes from {response.url}{hops}")
        if 200 <= response.status < 300 and not response.body:
            raise SheafError(ErrorKind.EMPTY, "the server sent an empty body",
                             url=response.url, status=response.status)
        return response

    def _finish(self, url: str, normalised: str, response: HttpResponse, document: Document,
                source: ContentSource, log: DecisionLog, *, content_type: str,
                content_response: HttpResponse | None = None) -> ResolvedContent:
        content = content_response or response
        if not document.text.strip():
            raise SheafError(ErrorKind.EMPTY, "no text could be extracted", url=content.url)
        document, note = cut_at_block_boundary(document, self._max_characters)
        if note:
            log.add("limit", note)
        for extractor_note in document.report:
            log.add("extract", extractor_note)
        log.add("result", f"{source.value}: {len(document.text)} characters")
        for decision in log.freeze().decisions:
            logger.debug("%s %s", url, decision)
        return ResolvedContent(
            text=document.text,
            content_type=content_type,
            source=source,
            original_url=url,
            normalised_url=normalised,
            final_url=response.url,
            sha256=hashlib.sha256(content.body).hexdigest(),
            raw=content.body,
            diagnostics=log.freeze(),
            document=document,
            metadata=document.metadata,
            content_url=content_response.url if content_response else None,
        )
