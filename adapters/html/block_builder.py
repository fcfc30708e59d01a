"""Walking the chosen content root once, turning elements into block drafts."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from urllib.parse import urljoin
from xml.etree.ElementTree import Element

from ...domain.document.document import BlockDraft, BlockKind, Link, ListItem
from .bibliographic_records import is_bibliographic_record
from .control_texts import is_control_text
from .element_rules import is_reference_entry, is_skipped, tokens
from .heading_shapes import BOLD_LINE_LEVEL, is_bold_line, styled_heading
from .layout_tables import is_layout_quote, is_layout_table, table_cells

HEADING_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "main", "ul", "ol", "dl", "dt", "dd", "li", "table",
    "blockquote", "pre", "figure", "figcaption", "header", "footer", "aside", "hr", "address",
    "details", "summary", "fieldset", "caption", "center", "body", "html", "tr", "td", "th",
    "tbody", "thead", "tfoot", *HEADING_TAGS,
})
# Publisher chrome: whole-element texts that are never part of the article.
CHROME_TEXTS = frozenset(t.lower() for t in (
    "Download PDF", "Full size image", "Open in new tab", "Download references",
    "Download citation", "Google Scholar", "PubMed", "PubMed Central", "CAS", "Article",
    "Crossref", "CrossRef", "Scopus", "Web of Science", "MathSciNet", "ADS", "MATH",
    "Show more", "Show less", "View article", "View in article", "Search in Google Scholar",
    "Reprints and permissions", "Check for updates", "Download", "Open in figure viewer",
    "PowerPoint", "Figure viewer", "Download figure", "Download table", "Export citation",
    "Article metrics", "Cite this article", "Back to top", "Jump to", "Go to:",
    "Full text", "Get rights and content", "Scholar", "View Article", "Google Scholar CrossRef",
    "Full Text", "Free full text", "Abstract/FREE Full Text", "PMC free article",
    "Share this article", "Copy to clipboard", "Show all", "Hide", "Expand", "Collapse",
    "View reference in article", "View reference", "Download figure:", "Download:",
    "Open in a new tab", "Download high-res image", "Download full-size image", "PMC",
))
# Counters and link rows that carry a number or a list of indexers ("Web of Science®
# Times Cited: 12", "CrossRef | PubMed | Google Scholar").
CHROME_PATTERN = re.compile(
    r"^(?:(?:web of science®?|scopus|crossref|google scholar|pubmed)\s*)?(?:times )?cited"
    r"(?: by)?:?\s*\(?\d*\)?$|"
    r"^(?:(?:crossref|pubmed(?: abstract)?|google scholar|full text|scopus|web of science®?|"
    r"pmc free article|cas|isi|medline|abstract|article|view|download)\s*[|,·•/]?\s*){2,}$",
    re.IGNORECASE,
)
# Sections that are the publisher's, not the article's (ADR-0005): dropped with their
# subsections. Back matter the article owns (acknowledgements, funding, author
# contributions, ethics, competing interests, data availability) stays.
DROPPED_SECTIONS = re.compile(
    r"^(?:rights and permissions|about this article|similar content being viewed by others|"
    r"cite this article|article metrics|share this article|comments|metrics|citations|"
    r"cited by(?: \(\d+\))?|associated content|related articles|recommended articles|"
    r"further reading|you may also like|read next|more from.*|advertisement|search|"
    r"navigation|publish with us|access options|buy article pdf|subscribe to this journal|"
    r"permissions|additional information|access this article|subscribe and save|buy now|"
    r"authors and affiliations|corresponding authors?|decision letter|author response|"
    r"share and cite|bookmark|\d+ blog links?|dblp - cs bibliography|"
    r"bibliographic and citation tools|code, data and media associated with this article|"
    r"demos|recommenders and search tools|arxivlabs:.*|access paper|current browse context|"
    r"change to browse by|references & citations|full-text links|export citation|"
    r"bookmark this article)$",
    re.IGNORECASE,
)
# Sections that follow an article on news and blog pages, in the languages of the web
# suites: what to read next, comments, newsletters, the author's box. Plurals only for
# comments: "Comment" and "Kommentar" also label an opinion piece above its text.
TAIL_SECTIONS = re.compile(
    r"^(?:see also|related(?: posts| stories| articles| content| news| topics)?|"
    r"more (?:stories|news|articles|on this topic|from .*)|recommended(?: for you)?|"
    r"popular(?: posts| stories)?|most (?:read|popular|viewed)|trending(?: now)?|"
    r"read (?:more|also|next)|you might also like|also read|about the author|"
    r"subscribe to .*|sign up .*|(?:our |the )?newsletter|share(?: this(?: article| post)?)?|"
    r"leave a (?:comment|reply)|(?:\d+ )?comments|tags|topics|"
    r"siehe auch|das könnte sie auch interessieren|mehr zu(?:m thema)? .*|mehr zum thema|"
    r"zum weiterlesen|weitere (?:artikel|beiträge|meldungen|themen|nachrichten)|"
    r"(?:verwandte|ähnliche) (?:artikel|beiträge|themen)|lesen sie auch|auch interessant|"
    r"meistgelesen|viel gelesen.*|(?:\d+ )?kommentare|kommentieren|über den autor|themen|"
    r"schlagworte|dieser artikel gefällt ihnen\?|teilen|artikel teilen|newsletter abonnieren|"
    r"veja também|leia também|relacionad[ao]s|notícias relacionadas|"
    r"noticias relacionadas|te puede interesar|lee también|contexto de la noticia|"
    r"articles similaires|à lire aussi|sur le même sujet|lire aussi|"
    r"leggi anche|potrebbe interessarti|articoli correlati)$",
    re.IGNORECASE,
)
REFERENCE_HEADINGS = re.compile(
    r"^\s*(?:[\dIVX]+\.?\s*)?(?:references?(?: and notes)?|bibliography|literature cited|"
    r"works cited|cited literature|citations|literatur|références|referencias)\s*$",
    re.IGNORECASE,
)
REFERENCE_TOKENS = re.compile(
    r"references?(?:-list|_list|list)?$|^c-article-references$|^ref-list|^reflist|"
    r"bibliography|^ltx_biblist$|^citation-list|^references__list|^html-references",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[\s\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_INVISIBLE = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_LABEL = re.compile(r"^\s*\[?(\d{1,4}|[a-zA-Z])[\].)]?\s+")
_CITATION_LIKE = re.compile(r"\d")
_LABELLED = re.compile(r"^\s*(?:Figure|Fig\.?|Table|Tab\.|Scheme|Chart|Plate|Box|Supplementary|"
                       r"Appendix|Video|Movie|Map|Graph|Exhibit)\s*[A-Z]?\d", re.IGNORECASE)
# A line that is only a date (and time), with at most a short label before it: the
# page's dateline, in any language that writes dates with numbers.
_DATELINE = re.compile(
    r"^(?:[^\W\d]{2,20}\.?:?\s+)?(?:[^\W\d]{2,12}\.?,?\s+)?"
    r"(?:\d{1,2}[./-]\s?\d{1,2}[./-]\s?\d{2,4}|\d{4}-\d{2}-\d{2}|"
    r"\d{1,2}\.?\s+[^\W\d]{3,12}\.?,?\s+\d{4}|[^\W\d]{3,12}\.?\s+\d{1,2},?\s+\d{4})"
    r"(?:,?\s*(?:um\s+|at\s+|à\s+|-\s*)?\d{1,2}[:.h]\d{2}(?:\s*(?:uhr|h|am|pm|[ap]\.m\.))?)?$",
    re.IGNORECASE)
NAVIGATION_LINK_SHARE = 0.7
"""Blocks whose text is at least this share of link text are navigation."""
MAX_DEPTH = 120
"""Nesting levels walked as structure; deeper content is taken as flat text, so the
recursive walk stays far from Python's recursion limit on any parseable page."""


def is_chrome_text(text: str) -> bool:
    """Whole texts of links and lines that are the publisher's controls, not content."""
    lowered = text.lower()
    return (lowered in CHROME_TEXTS or lowered.rstrip(": ") in CHROME_TEXTS
            or bool(CHROME_PATTERN.match(lowered)) or is_control_text(text))


def clean_inline(text: str) -> str:
    """Normalise NBSP and other spaces, drop zero-width characters, collapse runs."""
    # `_SPACES` is exactly what `str.split` splits at (every code point checked), and
    # split-and-join is several times faster than the substitution; ASCII text holds no
    # invisible character. Every block's text goes through here.
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
    return " ".join(text.split())


class BlockBuilder:
    """Accumulates drafts and links for one document, in reading order."""

    def __init__(self, base_url: str, *, photo_captions: bool = True,
                 link_lists: bool = False, publisher_page: bool = False) -> None:
        self.base_url = base_url
        self.photo_captions = photo_captions
        self.link_lists = link_lists
        """Keep lists and lines of links (a post that is a list of links)."""
        """Keep captions without a Figure/Table label (news photo captions)."""
        self.publisher_page = publisher_page
        """The page declares a publication (citation metadata): a definition list that
        is its bibliographic record is metadata, not body."""
        self.drafts: list[BlockDraft] = []
        self.links: list[Link] = []
        self._inline: list[str] = []
        self._linked = 0
        """Characters of link text in the pending paragraph."""
        self._in_references = False
        # The container a "References" heading opened: the list ends when it closes.
        self._references_scope: Element | None = None
        self._references_before = 0
        """References drafted before the last heading: none since means its list is yet
        to come."""
        self._containers: list[Element] = []
        self._depth = 0
        """Elements entered on the current path, across nested builders."""

    # -- public --------------------------------------------------------------------
    def build_all(self, parts: list[Element], *, drop_publisher_sections: bool = True
                  ) -> list[BlockDraft]:
        """Blocks of each part in turn (the content root and the parts found beside it);
        documents that are all content (an e-book's chapters) keep every section."""
        for part in parts:
            self._in_references = False
            self._block_or_inline(part, depth=0)
            self._flush_paragraph()
        return _drop_sections(self.drafts) if drop_publisher_sections else self.drafts

    # -- block level -----------------------------------------------------------------
    def _walk_block(self, element: Element, depth: int) -> None:
        children = _children_with_text(element)
        for position, child in enumerate(children):
            if isinstance(child, str):
                self._inline.append(child)
                continue
            if child.tag in ("p", "div") and (_is_reference_line(child) or (
                    not self._in_references
                    and is_bold_line(child, functools.partial(_next_element, children, position)))):
                self._flush_paragraph()
                self._heading(child, BOLD_LINE_LEVEL)
                self._add_tail(child)
                continue
            self._block_or_inline(child, depth + 1)

    def _block_or_inline(self, element: Element, depth: int) -> None:
        if self._depth >= MAX_DEPTH:
            if not is_skipped(element, inside_root=True, keep_hidden=self._in_references):
                self._inline.append("".join(_visible_text(element)))
            self._add_tail(element)
            return
        self._depth += 1
        try:
            self._element(element, depth)
        finally:
            self._depth -= 1

    def _element(self, element: Element, depth: int) -> None:
        if is_skipped(element, inside_root=True, keep_hidden=self._in_references):
            self._add_tail(element)
            return
        tag = element.tag
        shaped = (styled_heading(element)
                  if tag not in HEADING_TAGS and not self._in_references else None)
        if shaped is not None:
            self._flush_paragraph()
            self._heading(*shaped)
            self._add_tail(element)
            return
        if self._in_references and tag != "li" and tag in BLOCK_TAGS \
                and is_reference_entry(element):
            self._flush_paragraph()
            text = self._text_of(element)
            if text:
                self.drafts.append(self._reference(text, None, self._reference_count() + 1))
            self._add_tail(element)
            return
        if tag not in BLOCK_TAGS:
            if tag == "br":
                self._inline.append(" ")
            elif tag == "button":
                # In-text citations are buttons on some publishers ("Cohen, 1988");
                # other buttons are controls.
                text = "".join(_visible_text(element))
                if (_CITATION_LIKE.search(text) or _is_citation_control(element)) \
                        and not is_chrome_text(clean_inline(text)):
                    self._inline.append(text)
            elif tag == "a":
                self._inline.append(self._anchor_text(element))
            elif tag in ("img", "hr", "wbr"):
                pass
            else:
                self._inline_children(element)
            self._add_tail(element)
            return
        self._flush_paragraph()
        if tag in HEADING_TAGS:
            self._heading(element, HEADING_TAGS[tag])
        elif tag in ("ul", "ol"):
            self._list(element)
        elif tag == "dl":
            self._definition_list(element)
        elif tag == "table" and is_layout_table(element):
            for cell in table_cells(element):  # a page region, walked like a <div>
                if not is_skipped(cell, True):
                    self._containers.append(cell)
                    self._walk_block(cell, depth)
                    self._flush_paragraph()
                    self._containers.pop()
        elif tag == "table" and (self._in_references or self._enters_references(element)):
            self._reference_rows(element)
        elif tag == "table":
            self._table(element)
        elif tag == "pre":
            text = "".join(_all_text(element)).strip("\n")
            if text.strip():
                self.drafts.append(BlockDraft(BlockKind.CODE, text=text))
        elif tag == "blockquote" and is_layout_quote(element):
            self._containers.append(element)
            self._walk_block(element, depth)
            self._flush_paragraph()
            self._containers.pop()
        elif tag == "blockquote":
            inner = self._nested(photo_captions=self.photo_captions)
            inner._walk_block(element, depth)
            inner._flush_paragraph()
            self.links.extend(inner.links)
            text = "\n".join(_draft_plain(d) for d in inner.drafts)
            if text.strip():
                self.drafts.append(BlockDraft(BlockKind.QUOTE, text=text))
        elif tag in ("figcaption", "caption") or _is_caption(element):
            text = self._text_of(element)
            if text and (self.photo_captions or tag == "caption" or _LABELLED.match(text)):
                self.drafts.append(BlockDraft(BlockKind.CAPTION, text=text))
        else:
            entering = self._enters_references(element)
            if entering:
                self._in_references = True
            self._containers.append(element)
            self._walk_block(element, depth)
            self._flush_paragraph()
            self._containers.pop()
            if self._references_scope is element and not entering \
                    and self._reference_count() == self._references_before and self._containers:
                # The heading sat alone in its wrapper ("<div><h2>References</h2></div>"
                # then the entries in the next one): the list is in the wrapper around both.
                self._references_scope = self._containers[-1]
            elif entering or self._references_scope is element:
                self._in_references = False
                self._references_scope = None
        self._add_tail(element)

    def _heading(self, element: Element, level: int) -> None:
        text = self._text_of(element)
        if not text:
            return
        self._in_references = bool(REFERENCE_HEADINGS.match(text))
        self._references_scope = (self._containers[-1] if self._in_references and
                                  self._containers else None)
        self._references_before = self._reference_count()
        self.drafts.append(BlockDraft(BlockKind.HEADING, text=text, level=level))

    def _list(self, element: Element) -> None:
        in_references = self._in_references or self._enters_references(element)
        if not in_references and not self.link_lists \
                and link_share(element) >= NAVIGATION_LINK_SHARE:
            return  # menus, tag clouds, "more stories" lists
        items: list[ListItem] = []
        self._collect_items(element, 0, items)
        if not items:
            return
        if in_references:
            # Lists nested inside an entry are its links or notes, not further entries.
            entries = [item for item in items if item.depth == 0]
            for position, item in enumerate(entries, start=self._reference_count() + 1):
                self.drafts.append(self._reference(item.text, item.marker, position))
            return
        self.drafts.append(BlockDraft(BlockKind.LIST, items=tuple(items)))

    def _reference(self, text: str, marker: str | None, position: int) -> BlockDraft:
        label = (marker or "").rstrip(".") or None
        match = _LABEL.match(text)
        # A number printed in the entry is the one readers see (the list's own numbering is
        # usually hidden by the page's style); keeping both doubles it ("1. 1. Smith").
        if match and (label is None or match.group(1).isdigit()):
            label, text = match.group(1), text[match.end():]
        return BlockDraft(BlockKind.REFERENCE, text=text, label=label or str(position))

    def _collect_items(self, element: Element, depth: int, items: list[ListItem],
                       nesting: int = 0) -> None:
        ordered = element.tag == "ol"
        number = _int(element.get("start"), 1)
        for li in element:
            if not isinstance(li.tag, str) or li.tag != "li" or is_skipped(li, True):
                continue
            number = _int(li.get("value"), number)
            nested = [c for c in li if isinstance(c.tag, str) and c.tag in ("ul", "ol")]
            deeper = self._depth + nesting < MAX_DEPTH
            text = self._text_of(li, exclude=nested if deeper else None)
            if text:
                items.append(ListItem(text=text, depth=depth, ordered=ordered,
                                      marker=f"{number}." if ordered else None))
            if deeper:  # past the limit, sublists stay in their item's text
                for sub in nested:
                    self._collect_items(sub, depth + 1 if text else depth, items, nesting + 1)
            number += 1

    def _definition_list(self, element: Element) -> None:
        items: list[ListItem] = []
        for child in element:
            if not isinstance(child.tag, str) or is_skipped(child, True):
                continue
            text = self._text_of(child)
            if text:
                items.append(ListItem(text=text, depth=0 if child.tag == "dt" else 1))
        if self.publisher_page and not self._in_references and is_bibliographic_record(
                [i.text for i in items if i.depth == 0], [i.text for i in items if i.depth]):
            return
        if self._in_references:
            for position, item in enumerate(i for i in items if i.depth == 0):
                self.drafts.append(self._reference(item.text, None, position + 1))
        elif items:
            self.drafts.append(BlockDraft(BlockKind.LIST, items=tuple(items)))

    def _reference_rows(self, element: Element) -> None:
        """A reference list set as a table: each row one entry (a number cell and the
        citation), whatever the cells hold."""
        for row in _iter_table(element):
            if row.tag != "tr":
                continue
            cells = [self._text_of(c) for c in row if isinstance(c.tag, str)
                     and c.tag in ("td", "th") and not is_skipped(c, True)]
            text = " ".join(c for c in cells if c)
            if text:
                self.drafts.append(self._reference(text, None, self._reference_count() + 1))

    def _table(self, element: Element) -> None:
        rows: list[tuple[str, ...]] = []
        for child in _iter_table(element):
            if child.tag == "caption":
                text = self._text_of(child)
                if text:
                    self.drafts.append(BlockDraft(BlockKind.CAPTION, text=text))
                continue
            cells: list[str] = []
            for cell in child:
                if isinstance(cell.tag, str) and cell.tag in ("td", "th"):
                    cells.append(self._text_of(cell))
                    cells.extend([""] * (min(_int(cell.get("colspan"), 1), 50) - 1))
            if any(cells):
                rows.append(tuple(cells))
        if not rows:
            return
        if len(rows) == 1 or max(len(r) for r in rows) == 1:
            # Layout tables of one row or one column are prose, not data.
            for row in rows:
                text = " ".join(c for c in row if c)
                self.drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=text))
            return
        self.drafts.append(BlockDraft(BlockKind.TABLE, rows=tuple(rows)))

    # -- inline level ------------------------------------------------------------------
    def _inline_children(self, element: Element) -> None:
        for child in _children_with_text(element):
            if isinstance(child, str):
                self._inline.append(child)
            else:
                # Blocks inside inline elements (html5lib keeps such nesting) flush as usual.
                self._block_or_inline(child, 0)

    def _anchor_text(self, element: Element) -> str:
        text = clean_inline("".join(_visible_text(element)))
        if is_chrome_text(text):
            return ""
        href = element.get("href")
        if href and not href.startswith(("javascript:", "#", "mailto:")):
            self.links.append(Link(text=text, url=urljoin(self.base_url, href)))
        self._linked += len(text)
        return "".join(_visible_text(element))

    def _add_tail(self, element: Element) -> None:
        if element.tail:
            self._inline.append(element.tail)

    def _flush_paragraph(self) -> None:
        if not self._inline:
            return
        text = clean_inline("".join(self._inline))
        self._inline.clear()
        linked, self._linked = self._linked, 0
        if not text or is_chrome_text(text) or (len(text) <= 12 and not any(
                c.isalpha() for c in text)):
            return  # chrome, or counters and share tallies ("438.3K", "4")
        if not self._in_references and _DATELINE.match(text):
            return  # "Aktualisiert: 11.04.2020, 10:27", "Dienstag, 4. Juni 2019"
        if not self._in_references and not self.link_lists \
                and linked >= NAVIGATION_LINK_SHARE * len(text):
            return  # a line of links ("Read more: ...", tag lists), not prose
        if self._in_references:
            self.drafts.append(self._reference(text, None, self._reference_count() + 1))
        else:
            self.drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=text))

    def _reference_count(self) -> int:
        return sum(1 for d in self.drafts if d.kind is BlockKind.REFERENCE)

    def _text_of(self, element: Element, exclude: list[Element] | None = None) -> str:
        """Inline text of an element (its blocks flattened with spaces), chrome removed."""
        if self._depth >= MAX_DEPTH:
            return clean_inline("".join(_visible_text(element)))
        inner = self._nested(photo_captions=True)
        for child in _children_with_text(element):
            if isinstance(child, str):
                inner._inline.append(child)
            elif exclude and child in exclude:
                inner._add_tail(child)
            elif child.tag in BLOCK_TAGS and not is_skipped(child, True):
                block_text = inner._text_of(child)
                if not is_chrome_text(block_text):  # a counter line inside an entry
                    inner._inline.extend((" ", block_text, " "))
                inner._add_tail(child)
            else:
                inner._block_or_inline(child, 0)
        self.links.extend(inner.links)
        parts = [clean_inline("".join(inner._inline))]
        parts.extend(_draft_plain(d) for d in inner.drafts)
        return clean_inline(" ".join(p for p in parts if p))

    def _nested(self, *, photo_captions: bool) -> BlockBuilder:
        """A builder for an element's own text, continuing this one's depth count."""
        inner = BlockBuilder(self.base_url, photo_captions=photo_captions,
                             link_lists=self.link_lists, publisher_page=self.publisher_page)
        inner._depth = self._depth + 1
        return inner

    def _enters_references(self, element: Element) -> bool:
        return any(REFERENCE_TOKENS.search(t) for t in tokens(element))


_CITATION_CONTROL = re.compile(r"ref|cit|bib|xref", re.IGNORECASE)


def _is_citation_control(element: Element) -> bool:
    """A button that opens a cited work ("Dienes, forthcoming") is the sentence's text."""
    return any(_CITATION_CONTROL.search(t) for t in tokens(element))


def _is_caption(element: Element) -> bool:
    return element.tag in ("div", "p", "span") and any(
        _CAPTION_TOKEN.match(t) for t in (element.get("class") or "").split())


_CAPTION_TOKEN = re.compile(
    r"^(?:caption|wp-caption-text|media-caption|image-caption|"
    # BEM names: the caption element of a media or image block, with its modifiers
    # ("media__caption", "media__caption--source", "c-image__caption").
    r"[\w-]+__(?:caption|image-caption)(?:--[\w-]+)?)$",
    re.IGNORECASE)


def _is_reference_line(element: Element) -> bool:
    """A paragraph that says only "References" (or "Works cited", ...): the heading of
    the list below it, however it is styled."""
    if any(isinstance(c.tag, str) and c.tag in BLOCK_TAGS for c in element):
        return False
    text = "".join(element.itertext())
    return len(text) <= 40 and bool(REFERENCE_HEADINGS.match(text))


def _next_element(children: list[Element | str], position: int) -> Element | None:
    """The first element after `children[position]`, past whitespace, comments and empty
    elements; None when text or nothing comes next."""
    current = children[position]
    if isinstance(current, Element) and (current.tail or "").strip():
        return None
    for child in children[position + 1:]:
        if isinstance(child, str):
            if child.strip():
                return None
            continue
        if not isinstance(child.tag, str) or (
                not any(clean_inline(t) for t in child.itertext())
                and not any(e.tag in ("img", "table", "figure") for e in child.iter())):
            if clean_inline(child.tail or ""):
                return None
            continue  # a comment, a rule, an anchor or an empty spacer paragraph
        return child
    return None


def _children_with_text(element: Element) -> list[Element | str]:
    out: list[Element | str] = []
    if element.text:
        out.append(element.text)
    out.extend(element)
    return out


def _visible_text(element: Element) -> list[str]:
    """Text nodes in document order, without skipped (chrome, hidden) descendants."""
    return _text_nodes(element, lambda node: is_skipped(node, True))


visible_text = _visible_text


def _all_text(element: Element) -> list[str]:
    """Every text node, verbatim (for `pre`), scripts and styles aside."""
    return _text_nodes(element, lambda node: node.tag in ("script", "style"))


def _text_nodes(element: Element, skip: Callable[[Element], bool]) -> list[str]:
    parts: list[str] = []
    stack: list[Element | str] = [element]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
            continue
        if node is not element:
            if node.tail:
                stack.append(node.tail)
            if not isinstance(node.tag, str) or skip(node):
                continue
        stack.extend(reversed(_children_with_text(node)))
    return parts


def _iter_table(table: Element) -> list[Element]:
    rows: list[Element] = []
    for child in table:
        if not isinstance(child.tag, str):
            continue
        if child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(r for r in child if isinstance(r.tag, str) and r.tag == "tr")
        elif child.tag in ("tr", "caption"):
            rows.append(child)
    return rows


def _draft_plain(draft: BlockDraft) -> str:
    if draft.kind is BlockKind.LIST:
        return " ".join(i.text for i in draft.items)
    if draft.kind is BlockKind.TABLE:
        return " ".join(c for row in draft.rows for c in row if c)
    return draft.text


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


TEASER_PROSE = 150
"""A paragraph this long under a read-next heading is the article resuming (a related box
set inside the story), not a teaser."""


def _drop_sections(drafts: list[BlockDraft]) -> list[BlockDraft]:
    """Remove publisher sections (Rights and permissions, About this article, ...) whole,
    and read-next boxes (Related news, Siehe auch, ...) up to where prose resumes."""
    kept: list[BlockDraft] = []
    dropping_level = 0
    teasers = False
    for draft in drafts:
        if draft.kind is BlockKind.HEADING:
            if dropping_level and draft.level > dropping_level:
                continue
            dropping_level = 0
            label = clean_inline(draft.text).rstrip(":").strip()
            teasers = bool(TAIL_SECTIONS.match(label))
            if teasers or DROPPED_SECTIONS.match(label):
                dropping_level = draft.level
                continue
            if is_control_text(label):
                continue  # a menu's label ("Most downloaded articles"): its links go as links
        elif dropping_level:
            if not (teasers and draft.kind is BlockKind.PARAGRAPH
                    and len(draft.text) >= TEASER_PROSE):
                continue
            dropping_level = 0
        kept.append(draft)
    return kept


def link_share(element: Element) -> float:
    """The share of an element's visible text that sits inside links."""
    total = len(clean_inline("".join(_visible_text(element))))
    if not total:
        return 0.0
    linked = sum(len(clean_inline("".join(_visible_text(a)))) for a in element.iter("a"))
    return linked / total
