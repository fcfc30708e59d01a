"""The page cut into text blocks, each with what a block classifier reads about it.

A text block is the run of text that a block-level element (a paragraph, a list item, a
heading, a cell, a <div> with loose text) holds directly, inline children included: the
unit a reader sees as one line or paragraph. One walk of <body> gives every block, its
link text, the containers above it, the class/id words and semantic tags on its path,
and whether the page's class rules would leave it out.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

import attrs

from .block_builder import BLOCK_TAGS, clean_inline
from .element_rules import SKIP_TAGS, SVG_NAMESPACE, is_skipped
from .folded_patterns import FoldedPattern

_NEVER_TEXT = SKIP_TAGS - {"form", "nav", "menu", "label", "noscript"}
"""Elements whose text is never read (scripts, styles, media): left out of blocks. Forms,
menus and navigation are read, to be judged."""

# Class/id words the classifier sees on a block's path, by family; each family is one
# feature (does any token on the path contain one of the words).
# Matched on lowered ASCII tokens where that is exact (folded_patterns): every new class
# token and id of a page is read with all of them.
PATH_WORDS: tuple[tuple[str, FoldedPattern], ...] = tuple(
    (name, FoldedPattern(re.compile(pattern, re.IGNORECASE))) for name, pattern in (
        ("content", r"article|content|entry|post|story|body|text|main|blog|abstract"),
        ("comment", r"comment|disqus|repl(?:y|ies)|discussion|kommentar|respon"),
        ("side", r"side|aside|rail|widget|column|col-"),
        ("nav", r"nav|menu|breadcrumb|pagination|pager|toc"),
        ("footer", r"foot|bottom|copyright|legal"),
        ("header", r"head|masthead|top|banner|brand|logo"),
        ("related", r"related|recommend|more|teaser|popular|trending|read-?next|similar"),
        ("share", r"share|social|follow|print|email|tool"),
        ("ad", r"(?:^|[-_])ads?(?:$|[-_])|advert|promo|sponsor|banner|dfp|taboola|outbrain"),
        ("author", r"author|bio|byline|profile|avatar|contributor"),
        ("meta", r"meta|date|time|info|stamp|published|updated"),
        ("taxonomy", r"tag|categor|topic|keyword|label"),
        ("subscribe", r"newsletter|subscri|signup|sign-up|login|register|account|paywall"),
        ("consent", r"cookie|consent|gdpr|privacy|cmp"),
        ("caption", r"caption|credit|figure|photo|image|img|media|gallery"),
        ("title", r"title|headline|heading|hed"),
        ("card", r"card|grid|list|item|tile|feed|stream|carousel|slider"),
        ("scholarly", r"reference|citation|bib|section|sec|fulltext|full-text|article-body"),
        ("form", r"form|search|input|button|btn"),
    ))
SEMANTIC_PATH = ("article", "main", "aside", "nav", "footer", "header", "form", "table",
                 "li", "blockquote", "figure", "section")
_ARTICLE_BODY = "articleBody"


@attrs.define(slots=True)
class TextBlock:
    """One block of the page's text and its surroundings (mutable while the walk fills
    it in; read only afterwards)."""

    element: Element
    order: int
    offset: int
    """Characters of block text before this one on the page."""
    containers: tuple[Element, ...]
    """Block-level ancestors, outermost first, the element itself last."""
    words: int
    flags: int
    """Bit i set: PATH_WORDS[i] names a token on the path. Bit len(PATH_WORDS)+j:
    SEMANTIC_PATH[j] is an ancestor."""
    skipped: bool
    """The class and tag rules leave this block out wherever the root is."""
    in_article_body: bool
    """Under [itemprop=articleBody]."""
    text: str = ""
    link_chars: int = 0

    @property
    def length(self) -> int:
        return len(self.text)


@attrs.frozen
class PageBlocks:
    """Every text block of a page, in reading order."""

    blocks: tuple[TextBlock, ...]
    total: int
    """Characters of block text on the page."""


MAX_WALK_DEPTH = 400
"""Levels below which blocks are not cut further (their text joins the deepest block);
check_nesting has already refused pages far deeper than this."""


def page_blocks(body: Element) -> PageBlocks:
    """The text blocks of `body`, in document order."""
    blocks: list[TextBlock] = []
    parts: dict[int, list[str]] = {}
    offset = 0

    def open_block(element: Element, containers: tuple[Element, ...], flags: int,
                   skipped: bool, in_body: bool) -> TextBlock:
        block = TextBlock(element=element, order=len(blocks), offset=0,
                          containers=containers, words=0, flags=flags, skipped=skipped,
                          in_article_body=in_body)
        blocks.append(block)
        parts[block.order] = []
        return block

    outside = open_block(body, (), 0, False, False)  # receives nothing: body has no tail
    link_parts: dict[int, list[str]] = {}

    def walk(element: Element, block: TextBlock, containers: tuple[Element, ...], flags: int,
             skipped: bool, in_body: bool, linked: bool, depth: int) -> None:
        # An explicit stack, not recursion: pages nest deeply. Entries are (node, block
        # it writes into, containers, flags, skipped, in article body, in a link, depth).
        work: list[tuple[Element | str, TextBlock, tuple[Element, ...], int, bool, bool, bool,
                         int]] = [(element, block, containers, flags, skipped, in_body, linked,
                                   depth)]
        while work:
            node, blk, conts, flg, skp, inb, lnk, dep = work.pop()
            if isinstance(node, str):
                parts[blk.order].append(node)
                if lnk:
                    link_parts.setdefault(blk.order, []).append(node)
                continue
            tag = node.tag
            if not isinstance(tag, str) or tag in _NEVER_TEXT or tag.startswith(SVG_NAMESPACE):
                if node.tail:
                    parts[blk.order].append(node.tail)
                continue
            if node.attrib:
                flg = flg | _path_flags(node)
                if not skp and is_skipped(node, inside_root=False):
                    skp = True
                if node.get("itemprop") == _ARTICLE_BODY:
                    inb = True
            elif not skp and tag in ("nav", "header", "footer", "aside", "form", "menu"):
                skp = skp or is_skipped(node, inside_root=False)
            semantic = _SEMANTIC_BITS.get(tag)
            if semantic is not None:
                flg |= semantic
            inner = blk
            tail = node.tail
            outer_conts = conts
            if tag in BLOCK_TAGS and dep < MAX_WALK_DEPTH:
                conts = (*conts, node)
                inner = open_block(node, conts, flg, skp, inb)
                # A block inside loose text breaks it: the words either side stay apart.
                parts[blk.order].append(" ")
                tail = f" {tail}" if tail else None
            # The tail continues the enclosing block, after the children.
            if tail:
                work.append((tail, blk, outer_conts, flg, skp, inb, lnk, dep))
            child_linked = lnk or tag == "a"
            if len(node):
                work.extend([(child, inner, conts, flg, skp, inb, child_linked, dep + 1)
                             for child in reversed(node)])
            text = node.text
            if text:
                # Taken now rather than pushed: it would be the very next entry popped.
                parts[inner.order].append(text)
                if child_linked:
                    link_parts.setdefault(inner.order, []).append(text)

    walk(body, outside, (), 0, False, False, False, 0)
    kept: list[TextBlock] = []
    for block in blocks:
        text = clean_inline("".join(parts[block.order]))
        if not text:
            continue
        block.text = text
        block.link_chars = len(clean_inline("".join(link_parts.get(block.order, ()))))
        block.words = len(text.split())
        block.offset = offset
        block.order = len(kept)
        offset += len(text)
        kept.append(block)
    return PageBlocks(tuple(kept), offset)


_SEMANTIC_BITS = {tag: 1 << (len(PATH_WORDS) + i) for i, tag in enumerate(SEMANTIC_PATH)}


def _path_flags(element: Element) -> int:
    classes = element.get("class")
    flags = 0
    if classes:
        # Pages repeat whole class lists; a list seen before is one lookup.
        cached = _CLASS_FLAGS.get(classes)
        if cached is None:
            cached = 0
            for token in classes.split():
                cached |= _token_flags(token)
            _remember(_CLASS_FLAGS, classes, cached)
        flags = cached
    ident = element.get("id")
    if ident:
        flags |= _token_flags(ident)
    return flags


_TWINS = tuple(pattern.twin for _name, pattern in PATH_WORDS)
_PATH_TWINS = None if None in _TWINS else tuple(t for t in _TWINS if t is not None)
"""Every path-word pattern's lowered twin, when they all have one."""

_CACHE_LIMIT = 65536
"""Entries a flag cache holds before it starts afresh. Emptied rather than frozen when
full: a long-running process (a crawl, `sheaf extract` over many files) meets new class
lists on every site, and a frozen cache would read each of them with every pattern."""
_CLASS_FLAGS: dict[str, int] = {}
_TOKEN_FLAGS: dict[str, int] = {}


def _remember(cache: dict[str, int], key: str, flags: int) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = flags


def _token_flags(token: str) -> int:
    cached = _TOKEN_FLAGS.get(token)
    if cached is not None:
        return cached
    flags = 0
    if _PATH_TWINS is not None and token.isascii():
        # What each FoldedPattern.search would do, with the token lowered once for all.
        lowered = token.lower()
        for bit, twin in enumerate(_PATH_TWINS):
            if twin.search(lowered):
                flags |= 1 << bit
    else:
        for bit, (_name, pattern) in enumerate(PATH_WORDS):
            if pattern.search(token):
                flags |= 1 << bit
    _remember(_TOKEN_FLAGS, token, flags)  # pages repeat class tokens thousands of times
    return flags
