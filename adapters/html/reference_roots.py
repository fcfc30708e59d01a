"""A reference list is never the article's body (issue 29).

Readability-style scores count commas, and a reference list is dozens of comma-rich
entries: on pages whose body is split into many small sections it can outscore every
section. When the best-scoring container is a reference list (its class says so, or its
first heading is "References"), the article is the closest ancestor that holds clearly
prose beside the list: a quarter of the list's again, and at least a few paragraphs.
"""

from __future__ import annotations

from collections.abc import Callable
from xml.etree.ElementTree import Element

from .block_builder import REFERENCE_HEADINGS, REFERENCE_TOKENS
from .element_rules import tokens

PROSE_BESIDE_SHARE = 0.25
PROSE_BESIDE_MIN = 500
"""Prose an ancestor needs beside the list (a share of the list's, and characters) to be
the article around it."""
_HEADINGS = ("h1", "h2", "h3", "h4")


def is_reference_container(element: Element) -> bool:
    """The element's class or id names a reference list, or its first heading reads
    "References" (or "Bibliography", "Literature cited", ...)."""
    if any(REFERENCE_TOKENS.search(t) for t in tokens(element)):
        return True
    heading = next((e for e in element.iter() if e.tag in _HEADINGS), None)
    return heading is not None and bool(REFERENCE_HEADINGS.match("".join(heading.itertext())))


def past_reference_list(best: Element, parents: dict[Element, Element], body: Element,
                        prose: Callable[[Element], int]) -> Element:
    """`best`, or when it is a reference list the closest ancestor below <body> that holds
    prose beside it."""
    if not is_reference_container(best):
        return best
    own = prose(best)
    wanted = max(PROSE_BESIDE_SHARE * own, PROSE_BESIDE_MIN)
    node = parents.get(best)
    while node is not None and node is not body:
        if prose(node) - own >= wanted:
            return node
        node = parents.get(node)
    return best
