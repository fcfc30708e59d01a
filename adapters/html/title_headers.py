"""An article's own header under a class that reads as the site's (issue 29).

"page-header", "masthead" and the like name a site's banner on most pages, and the class
rules leave such containers out. On paper landing pages the same words name the block
that holds the paper itself: its title as the page's h1 and its abstract. A container
the class rules skip is the article's header, and kept, when it holds the article's own
title as its h1 and paragraphs of prose.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from .element_rules import SKIP_TAGS, is_hidden, is_skipped, mark_rescued

HEADER_MIN_PROSE = 300
"""Paragraph characters a skipped header needs beside the title to be the article's."""


def keep_titled_headers(root: Element, title: str) -> int:
    """Mark kept every container under `root` that class rules skip but that holds the
    article's title as an h1 and `HEADER_MIN_PROSE` characters of paragraphs. Returns
    how many were marked."""
    wanted = _folded(title)
    if len(wanted) < 10:
        return 0
    titled = [h for h in root.iter("h1") if _folded("".join(h.itertext())) == wanted]
    if not titled:
        return 0
    parents = {child: parent for parent in root.iter() for child in parent}
    marked = 0
    for heading in titled:
        element = parents.get(heading)
        while element is not None:  # only the title's ancestors can hold it
            if element.tag not in SKIP_TAGS and not is_hidden(element) \
                    and is_skipped(element, inside_root=True) \
                    and sum(len("".join(p.itertext()).strip())
                            for p in element.iter("p")) >= HEADER_MIN_PROSE:
                mark_rescued(element)
                marked += 1
            element = parents.get(element)
    return marked


def _folded(text: str) -> str:
    return " ".join(text.lower().split())
