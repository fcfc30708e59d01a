"""An article body that stray end tags closed early (issue 29).

A template that emits one end tag too many (`</section></article></div>` where two
were meant) closes the publisher's body element halfway: the parser puts the remaining
sections beside it, not in it. Those sections still carry the body's own section markup
(the class tokens its sections inside have), so the siblings right after the body that
repeat that markup are the rest of it.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from .element_rules import is_skipped

_SECTION_TAGS = frozenset({"div", "section", "article"})


def continuing_sections(root: Element, parents: dict[Element, Element]) -> tuple[Element, ...]:
    """`root` and the run of siblings right after it whose classes repeat a class of a
    section inside `root`, in document order; empty when no sibling continues it."""
    parent = parents.get(root)
    if parent is None:
        return ()
    inner = {token for e in root.iter() if e is not root and e.tag in _SECTION_TAGS
             for token in (e.get("class") or "").split()}
    if not inner:
        return ()
    siblings = [c for c in parent if isinstance(c.tag, str)]
    kept = [root]
    for sibling in siblings[siblings.index(root) + 1:]:
        if is_skipped(sibling, inside_root=False):
            continue
        classes = set((sibling.get("class") or "").split())
        if sibling.tag not in _SECTION_TAGS or not inner & classes:
            break
        kept.append(sibling)
    return tuple(kept) if len(kept) > 1 else ()
