"""The HTML extractor port over html5lib: parse once, choose the article, walk it once."""

from __future__ import annotations

import logging
import re
from xml.etree.ElementTree import Element

import anyio
import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document
from ...domain.document.extraction_confidence import ExtractionConfidence
from ...domain.document.markdown_rendering import assemble_document, with_title_heading
from ...domain.document.omissions import uncounted_note
from ...domain.errors import ErrorKind, SheafError
from ..extraction.paused_collection import paused_collection
from .block_builder import BlockBuilder, clean_inline, visible_text
from .block_model import BlockModel, shipped_model
from .content_omissions import content_omissions
from .content_root import RootCandidate, page_titles
from .leading_headings import with_leading_headings
from .learned_root import continuing_parts, extraction_evidence, propose_root, pruned_drafts
from .page_inputs import PageInputs, first_heading, read_page
from .rights_notices import without_rights_notices
from .satellites import find_satellites
from .script_state import script_state_article
from .title_headers import keep_titled_headers
from .trailing_chrome import without_trailing_chrome

logger = logging.getLogger("sheaf.html")


class Html5libExtractor:
    """Extracts the main content of a page as structured Markdown with its metadata, in a
    worker thread (bounded by `limiter` when one is shared)."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 block_model: BlockModel | None = None) -> None:
        self._limiter = limiter
        self._model = block_model
        """The block classifier; None for the shipped one (benchmarks pass fold models)."""

    async def extract(self, body: bytes, *, url: str, charset: str | None = None) -> Document:
        return await anyio.to_thread.run_sync(self.extract_sync, body, url, charset,
                                              limiter=self._limiter)

    def extract_sync(self, body: bytes, url: str, charset: str | None = None) -> Document:
        """Synchronous extraction, for callers already off the event loop."""
        with paused_collection():
            return self._extract(body, url, charset)

    def _extract(self, body: bytes, url: str, charset: str | None) -> Document:
        page = read_page(body, url, charset)
        html, metadata, head_links = page.html, page.metadata, page.head_links
        model = self._model or shipped_model()
        probabilities = model.probabilities(page.evidence.vectors)
        candidates = page.candidates
        # Abstracts and reference lists live outside the body on publisher pages only.
        scholarly = bool(metadata.doi or metadata.journal or metadata.citation_pdf_url)
        log: list[str] = []  # the decision log: roots passed over, and why
        if scholarly and metadata.title:
            keep_titled_headers(page.body, metadata.title)
        # Publisher markup is a declaration the classifier does not second-guess.
        proposal = None if candidates[0].why.startswith("publisher") else propose_root(
            page.evidence.blocks, probabilities, candidates[0].parts, page.body)
        if proposal is not None:
            candidates = [RootCandidate(proposal.element, proposal.why, 0), *candidates]
        for candidate in candidates:
            root, why = candidate.element, candidate.why
            before, after = find_satellites(html, root) if scholarly else ([], [])
            parts = candidate.parts
            if not scholarly and not candidate.siblings and root is not page.body:
                continuing = continuing_parts(root, page.evidence.blocks, probabilities)
                if continuing:
                    parts = continuing
                    why += (f"; with {len(continuing) - 1} part(s) beside it the block "
                            f"classifier reads as the article's")
            # Scholarly figures are content; a news photo's caption is not the article's.
            builder = BlockBuilder(url, photo_captions=scholarly, publisher_page=scholarly)
            sequence = [*before, *parts, *after]
            if scholarly:
                sequence = with_leading_headings(sequence, html)
            drafts = builder.build_all(sequence)
            if before or after:
                why += f"; with {len(before)} abstract and {len(after)} reference part(s) beside it"
            # The last candidate takes whatever prose it has: a short page is still a page.
            last = candidate is candidates[-1]
            refusal = None if last else _implausible(drafts, candidate.prose, html)
            if refusal is not None and _declared_article(why):
                # A declared article that is all links is a post of links (a link roll,
                # a reading list): read again with its lists of links kept.
                builder = BlockBuilder(url, photo_captions=scholarly, link_lists=True,
                                       publisher_page=scholarly)
                linked = builder.build_all(sequence)
                if _implausible(linked, candidate.prose, html) is None:
                    drafts, refusal = linked, None
                    why += "; its lists of links kept"
            if refusal is None:
                read = [*before, *parts, *after]
                break
            log.append(f"HTML content root <{root.tag}> ({why}) passed over: {refusal}")
        else:
            raise SheafError(ErrorKind.EMPTY, "the page has no main content", url=url)
        structured = page.structured_body
        kept = _prose_length(drafts)
        if structured and kept < SHORT_TEXT and len(structured) >= STRUCTURED_MIN \
                and len(structured) > STRUCTURED_GAIN * kept \
                and _continues(drafts, structured):
            # The markup shows next to nothing, and the page declares its article in
            # JSON-LD: the text is rendered by script.
            log.append(f"HTML content root <{root.tag}> ({why}) passed over: {kept} "
                       f"characters kept, JSON-LD articleBody has {len(structured)}")
            drafts = [BlockDraft(BlockKind.PARAGRAPH, text=line)
                      for line in (clean_inline(part) for part in structured.split("\n"))
                      if line]
            why = "JSON-LD articleBody"
            root = html
            read = []
        elif kept < SHORT_TEXT:
            state = self._script_state(body, html, metadata.title, url, scholarly)
            state_prose = _prose_length(state[0]) if state else 0
            if state and state_prose >= STRUCTURED_MIN and state_prose > STRUCTURED_GAIN * kept:
                # The page ships its story as script state and renders it in the browser.
                log.append(f"HTML content root <{root.tag}> ({why}) passed over: {kept} "
                           f"characters kept, the script state titled after the page has "
                           f"{state_prose}")
                drafts, builder = state
                why = "script state titled after the page"
                root = html
                read = []
        logger.debug("%s: content root <%s> (%s)", url, root.tag, why)
        if root is page.candidates[0].element and not scholarly:
            # Only inside the cascade's first choice: the classifier read every block
            # with that choice as its prior, and a block outside it scores low for that
            # reason alone. Not on publisher pages, where what it doubts are captions and
            # notes the article owns.
            drafts, dropped = pruned_drafts(drafts, page.evidence.blocks, probabilities)
            if dropped:
                why += f"; {dropped} block(s) the block classifier scores as boilerplate left out"
        h1 = first_heading(root) or first_heading(html)
        drafts = without_trailing_chrome(without_rights_notices(
            _without_title_heading(drafts, {metadata.title, h1})))
        if not any(d.kind is not BlockKind.HEADING for d in drafts):
            raise SheafError(ErrorKind.EMPTY, "the page has no main content", url=url)
        if metadata.title is None:
            first = next((d for d in drafts if d.kind is BlockKind.HEADING), None)
            metadata = attrs.evolve(metadata, title=first.text if first else None)
            drafts = drafts[1:] if first is not None and drafts[0] is first else drafts
        drafts = with_title_heading(drafts, metadata.title)
        left_out = content_omissions(read, captions_kept=scholarly).note() if read \
            else uncounted_note("the text came from the page's script data, not its markup")
        document = assemble_document(drafts, metadata=metadata,
                                     links=[*head_links, *builder.links],
                                     notes=[*log, f"HTML content root: <{root.tag}> ({why})",
                                            left_out])
        confidence = _confidence(page, probabilities, document, root, why, len(log))
        return attrs.evolve(document, confidence=confidence,
                            notes=(*document.notes, confidence.note))


    @staticmethod
    def _script_state(raw: bytes, html: Element, title: str | None, url: str, scholarly: bool
                      ) -> tuple[list[BlockDraft], BlockBuilder] | None:
        titles = page_titles(html) | ({" ".join(title.lower().split())} if title else set())
        parts = script_state_article(raw, titles)
        if not parts:
            return None
        builder = BlockBuilder(url, photo_captions=scholarly, publisher_page=scholarly)
        return builder.build_all(parts), builder


def _confidence(page: PageInputs, probabilities: list[float], document: Document,
                root: Element, why: str, passed_over: int) -> ExtractionConfidence:
    evidence = extraction_evidence(page.evidence.blocks, probabilities,
                                   " ".join(document.text.split()))
    reason = (f"root <{root.tag}> ({why}) holds {evidence.coverage:.0%} of the page's text "
              f"the block classifier scores as content, and {evidence.purity:.0%} of the "
              f"page text it holds scores as content")
    if passed_over:
        reason += f"; {passed_over} candidate root(s) passed over before it"
    return ExtractionConfidence(round(evidence.confidence, 3), reason)


MIN_KEPT_SHARE = 0.25
"""Share of the prose credited to a root that its extraction must give back; below it
(and below `SHORT_TEXT`) the builder's rules found the root to be chrome."""
SHORT_TEXT = 300


PAGE_TEXT_SHARE = 0.1
"""Share of the page's visible text below which a short extraction is not the article."""


STRUCTURED_MIN = 200
STRUCTURED_GAIN = 2.0
"""How many times longer than the extraction a JSON-LD articleBody must be to replace it."""


def _declared_article(why: str) -> bool:
    return why.startswith(("semantic container <article>",
                           "semantic container [itemprop=articleBody]"))


def _continues(drafts: list[BlockDraft], structured: str) -> bool:
    """True when the structured body is the article the markup shows part of: the first
    paragraph kept (if any) opens the same way in it."""
    first = next((d.text for d in drafts if d.kind is BlockKind.PARAGRAPH), None)
    return first is None or " ".join(first.split()[:6]) in " ".join(structured.split())


def _prose_length(drafts: list[BlockDraft]) -> int:
    return sum(len(d.text) + sum(len(i.text) for i in d.items)
               + sum(len(c) for row in d.rows for c in row)
               for d in drafts if d.kind is not BlockKind.HEADING)


def _implausible(drafts: list[BlockDraft], credited: int, html: Element) -> str | None:
    """Why an extraction cannot be the article, or None when it can."""
    prose = _prose_length(drafts)
    if not prose:
        return "nothing but headings or chrome inside"
    if prose >= SHORT_TEXT:
        return None
    if prose < MIN_KEPT_SHARE * credited:
        return f"{prose} characters kept of {credited} scored"
    # Prose set in <span>s and <div>s escapes paragraph scoring; the page's own visible
    # text shows that the short root is not all there is.
    body = next(html.iter("body"), html)
    page_text = len(clean_inline("".join(visible_text(body))))
    if prose < PAGE_TEXT_SHARE * page_text:
        return f"{prose} characters kept of the page's {page_text}"
    return None


def _without_title_heading(drafts: list[BlockDraft], titles: set[str | None]
                           ) -> list[BlockDraft]:
    """The heading that repeats the page's title near the top gives way to the title
    heading the document is given; short lines above it are the banner over the title
    (article type, journal, date), not the article, and go with it."""
    wanted = {_comparable(t) for t in titles if t}
    matching = [i for i, d in enumerate(drafts[:_TITLE_WITHIN])
                if d.kind is BlockKind.HEADING and _comparable(d.text) in wanted]
    if not matching:
        return drafts
    above = [d for i, d in enumerate(drafts[:matching[-1]]) if i not in matching]
    if all(_is_banner_line(d) for d in above):
        above = []
    return above + drafts[matching[-1] + 1:]


_TITLE_WITHIN = 8
"""Blocks searched for the title heading."""
_BANNER_LINE = 120
"""Characters beyond which a block above the title is prose, not banner."""
_LABEL_PREFIX = re.compile(r"^(?:title|article title)\s*:\s*", re.IGNORECASE)


def _is_banner_line(draft: BlockDraft) -> bool:
    return draft.kind in (BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.LIST) and len(
        " ".join(i.text for i in draft.items) if draft.kind is BlockKind.LIST
        else draft.text) <= _BANNER_LINE


def _comparable(text: str) -> str:
    return _LABEL_PREFIX.sub("", " ".join(text.lower().split()))
