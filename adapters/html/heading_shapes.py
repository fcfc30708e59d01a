"""Headings that are not h1–h6 elements, recognised by their shape (issue 29).

Publisher templates set section headings in several other ways, each a class of markup
rather than one site's quirk:

- an ARIA heading: `role="heading"` with `aria-level`;
- a block whose class names a heading level (`div.h3`, `span.title2`, `p.heading-4`);
- a block whose class calls it a heading (`table.sectionHeading`, `div.section-heading`),
  at the level an enclosing level class gives, else 2;
- a bold line: a paragraph whose whole text is one short bold run, followed by prose.

Each needs short text that does not read as a sentence, so a class word on a prose
container or a bold lead-in sentence is never taken for a heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree.ElementTree import Element

from .element_rules import is_skipped

MAX_HEADING_CHARS = 150
MAX_HEADING_WORDS = 20
MAX_BOLD_LINE_CHARS = 100
LINKED_SHARE = 0.7
BOLD_LINE_LEVEL = 3
"""Bold lines head subsections more often than sections; their markup says no level."""
MIN_FOLLOWING_PROSE = 25
"""Characters of prose the block after a bold line needs for the line to head it."""

_LEVEL_TOKEN = re.compile(r"^(?:h|heading|head|hed|title|sec-?title|section-?title)[-_]?([1-6])$",
                          re.IGNORECASE)
"""A class token that names a heading level: `h3`, `title2`, `heading-4`."""
_HEADING_TOKEN = re.compile(r"heading|^(?:sec|section|chapter)[-_]?(?:title|head)$",
                            re.IGNORECASE)
"""A class token that calls its element a heading without a level."""
_BOLD_TAGS = frozenset({"b", "strong"})
_WRAPPER_TAGS = frozenset({"em", "i", "u", "span", "font", "a"})
"""Inline elements a bold line may be wrapped in (an italic, a jump-target anchor)."""
_FOLLOWING_TAGS = frozenset({"p", "div", "blockquote", "ul", "ol", "table"})
_BLOCK_CHILDREN = frozenset({"p", "ul", "ol", "dl", "blockquote", "pre", "figure", "li"})
_FIELD = re.compile(r"\w:\s")
"""A bold "Label: value" line is a field of a record, not a heading."""
_SENTENCE_END = re.compile(r"[.!?:;,]\s*$")
_SENTENCE_BREAK = re.compile(r"[a-z]{2}[.!?]\s+[A-Z]")
LABEL_WORDS = 3
"""Words before a full stop that still make a label ("Chemistry. General"), not a
sentence."""
_SHAPED_TAGS = frozenset({"div", "span", "p", "table", "td", "th", "section", "header",
                          "strong", "b", "font"})


def styled_heading(element: Element) -> tuple[Element, int] | None:
    """The element holding the heading text and the level, for an element that is not an
    h element but declares itself a heading by its role or class; None when it does not,
    or when its text is too long or reads as a sentence. A heading bar set as a table
    (the title in a header cell, jump controls in the others) is headed by its first
    header cell."""
    tag = element.tag
    if not isinstance(tag, str) or tag not in _SHAPED_TAGS or not element.attrib:
        return None
    level = _declared_level(element)
    if level is None:
        return None
    part = next(element.iter("th"), element) if tag == "table" else element
    return (part, level) if _heading_text(part) else None


def _declared_level(element: Element) -> int | None:
    if (element.get("role") or "").lower() == "heading":
        return _int_level(element.get("aria-level")) or 2
    classes = (element.get("class") or "").split()
    for token in classes:
        found = _LEVEL_TOKEN.match(token)
        if found:
            return int(found.group(1))
    if any(_HEADING_TOKEN.search(t) for t in classes):
        return 2
    return None


def is_bold_line(element: Element, next_element: Callable[[], Element | None]) -> bool:
    """A paragraph that is one short bold run and nothing else (the bold may sit inside
    an italic or an anchor that names a jump target), followed by a block of prose or by
    another such line: the heading of what follows, as plain-HTML galleys write it.
    `next_element` finds what follows; it is asked only for a bold line."""
    if _bold_run(element) is None:
        return False
    following = next_element()
    if following is None or following.tag not in _FOLLOWING_TAGS \
            or is_skipped(following, inside_root=True):
        return False
    if _bold_run(following) is not None:
        return True  # a section heading right above its first subsection's
    after = " ".join("".join(following.itertext()).split())
    return len(after) >= MIN_FOLLOWING_PROSE


def _bold_run(element: Element) -> str | None:
    """The text of a line that is one short bold run that reads as a heading, else None."""
    if element.tag not in ("p", "div") or (element.text or "").strip():
        return None
    node = element
    while True:  # down through wrappers that hold nothing but one inline element
        children = [c for c in node if isinstance(c.tag, str) and c.tag != "br"
                    and not (c.tag == "a" and not c.get("href") and not "".join(c.itertext()))]
        if len(children) != 1 or any((c.tail or "").strip() for c in node) \
                or (node is not element and (node.text or "").strip()):
            return None
        node = children[0]
        if node.tag in _BOLD_TAGS:
            break
        if node.tag not in _WRAPPER_TAGS:
            return None
    # A bold link is a teaser for another page, not a heading of this one (an anchor
    # that only names a jump target is no link).
    if any(isinstance(c.tag, str) and (c.tag in _BLOCK_CHILDREN
                                       or (c.tag == "a" and c.get("href")))
           for c in node.iter()):
        return None
    text = " ".join("".join(node.itertext()).split())
    if not text or len(text) > MAX_BOLD_LINE_CHARS or not _reads_as_heading(text) \
            or _FIELD.search(text):
        return None
    return text


def _heading_text(element: Element) -> bool:
    if any(isinstance(c.tag, str) and c.tag in _BLOCK_CHILDREN
           for c in element.iter() if c is not element):
        return False
    text = " ".join("".join(element.itertext()).split())
    if not text or len(text) > MAX_HEADING_CHARS or not _reads_as_heading(text):
        return False
    # A line that is one link is navigation ("Back to the home page"), whatever its class.
    linked = sum(len("".join(a.itertext()).strip()) for a in element.iter("a"))
    return linked < LINKED_SHARE * len(text)


def _reads_as_heading(text: str) -> bool:
    """Few words and no sentence: headings may end in "?" but not run on past a full
    stop after more than a label's words, and a line ending in a comma or colon is a
    lead-in."""
    if len(text.split()) > MAX_HEADING_WORDS or not any(c.isalpha() for c in text):
        return False
    stop = _SENTENCE_BREAK.search(text)
    if stop is not None and len(text[:stop.start() + 2].split()) > LABEL_WORDS:
        return False
    return not _SENTENCE_END.search(text) or text.endswith("?")


def _int_level(value: str | None) -> int | None:
    try:
        level = int(value or "")
    except ValueError:
        return None
    return level if 1 <= level <= 6 else None
