"""Parts of an article that publishers place outside its main body: the abstract before it,
the reference list after it."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from .block_builder import REFERENCE_HEADINGS, REFERENCE_TOKENS, clean_inline
from .element_rules import is_skipped, tokens

_ABSTRACT = re.compile(r"(?:^|[-_])(?:abstract|abstracts|digest|executive-summary)(?:$|[-_])",
                       re.IGNORECASE)
_HEADINGS = ("h1", "h2", "h3", "h4")


def find_satellites(html: Element, root: Element) -> tuple[list[Element], list[Element]]:
    """Abstract containers before `root` and reference containers after it, when `root`
    lacks them; outermost ones only, never inside chrome."""
    parents = {child: parent for parent in html.iter() for child in parent}
    inside_root = set(root.iter())
    order = {element: i for i, element in enumerate(html.iter())}
    root_position = order[root]
    want_abstract = not any(_is_abstract(e) for e in inside_root)
    want_references = not any(_is_references(e) for e in inside_root)
    before: list[Element] = []
    after: list[Element] = []
    if not (want_abstract or want_references):
        return before, after
    for element in html.iter():
        if element in inside_root or not isinstance(element.tag, str):
            continue
        if _contains(element, root, parents):
            continue
        position = order[element]
        if want_abstract and position < root_position and _is_abstract(element):
            candidate_list = before
        elif want_references and position > root_position and _is_references(element):
            candidate_list = after
        else:
            continue
        if _blocked(element, parents) or any(_contains(kept, element, parents)
                                             for kept in candidate_list):
            continue
        if len(clean_inline("".join(element.itertext()))) < 40:
            continue
        candidate_list.append(element)
    return before, after


def _is_abstract(element: Element) -> bool:
    if not isinstance(element.tag, str) or element.tag in _HEADINGS or element.tag == "a":
        return False
    return any(_ABSTRACT.search(t) for t in tokens(element))


def _is_references(element: Element) -> bool:
    if not isinstance(element.tag, str) or element.tag == "a":
        return False
    if element.tag in _HEADINGS:
        return False
    if element.get("id", "").lower() in ("references", "bibliography"):
        return True
    if any(REFERENCE_TOKENS.search(t) for t in tokens(element)):
        return True
    first_heading = next((h for h in element if isinstance(h.tag, str) and h.tag in _HEADINGS),
                         None)
    return first_heading is not None and bool(
        REFERENCE_HEADINGS.match(clean_inline("".join(first_heading.itertext()))))


def _contains(outer: Element, inner: Element, parents: dict[Element, Element]) -> bool:
    node: Element | None = inner
    while node is not None:
        if node is outer:
            return True
        node = parents.get(node)
    return False


def _blocked(element: Element, parents: dict[Element, Element]) -> bool:
    node: Element | None = element
    while node is not None:
        if node.tag not in ("html", "body") and is_skipped(node, inside_root=False,
                                                           keep_hidden=True):
            return True
        node = parents.get(node)
    return False
