"""The page's text runs under its title: a box apart from the titled column is a side panel.

Shop category pages, landing pages and institutional pages set a short description under
the page's `<h1>` in the main column and boxes of addresses, opening hours and offers in
a side column. The boxes are dense with commas and can outscore the description. When the
best-scoring container does not hold the heading that repeats the page's title, and the
column around that heading (its closest ancestor with a paragraph's worth of prose) holds
neither it nor less prose than it, the article is the best-scoring container in that
column.
"""

from __future__ import annotations

from collections.abc import Callable
from xml.etree.ElementTree import Element

COLUMN_PROSE = 300
"""Paragraph text that makes an ancestor of the title heading the column it heads."""
MAX_LINK_DENSITY = 0.25


def title_heading(body: Element, titles: set[str]) -> Element | None:
    """The first `<h1>` that is the page's title, or how the title begins ("Villa Sol" in
    "Villa Sol (4711) - Holiday homes"); None when no `<h1>` is."""
    for element in body.iter("h1"):
        if names_the_page(" ".join("".join(element.itertext()).lower().split()), titles):
            return element
    return None


def names_the_page(heading: str, titles: set[str]) -> bool:
    """`heading` (case- and space-folded) is one of the page's titles or how one begins."""
    return len(heading) >= 10 and any(t == heading or t.startswith(heading + " ")
                                      for t in titles)


def titled_column_root(root: Element, heading: Element, parents: dict[Element, Element],
                       body: Element, holds: Callable[[Element, Element], bool],
                       score: Callable[[Element], float], prose: Callable[[Element], int],
                       link_density: Callable[[Element], float]) -> Element | None:
    """The best-scoring container of the column `heading` opens, when `root` lies apart
    from that column and holds less prose than what is chosen there; else None.
    `holds(a, b)` says whether `a` is `b` or one of its ancestors."""
    if holds(root, heading):
        return None
    column = parents.get(heading)
    while column is not None and column is not body and prose(column) < COLUMN_PROSE:
        column = parents.get(column)
    if column is None or column is body or holds(column, root):
        return None
    inside = [e for e in column.iter() if isinstance(e.tag, str) and score(e) > 0]
    if not inside:
        return None
    chosen = max(inside, key=score)
    if prose(chosen) < max(COLUMN_PROSE, prose(root)) or link_density(chosen) > MAX_LINK_DENSITY:
        return None
    return chosen

