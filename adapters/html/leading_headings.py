"""The heading just before an article part, outside it (issue 29).

Publisher templates often put a section's heading beside its content element rather
than in it: `<h2>Abstract</h2><div class="abstract">...</div>`. When that element is
chosen as the body (or joins it as the abstract), the heading is left out. A part that
does not open with a heading of its own takes the heading that immediately precedes it
(nothing but whitespace, comments and empty elements between).
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

_LEADING = frozenset({"h2", "h3", "h4", "h5", "h6"})
_HEADINGS = frozenset({"h1", *_LEADING})


def with_leading_headings(parts: list[Element], html: Element) -> list[Element]:
    """`parts` with, before each that opens without a heading, the heading element right
    before it (h2–h6; an h1 is the page's title, which the document has already)."""
    if not parts:
        return parts
    wanted = {id(p) for p in parts}
    parents = {id(child): parent for parent in html.iter() for child in parent
               if id(child) in wanted}
    taken = set(wanted)
    out: list[Element] = []
    for part in parts:
        heading = _heading_before(part, parents.get(id(part)))
        if heading is not None and id(heading) not in taken and not _opens_with_heading(part):
            out.append(heading)
            taken.add(id(heading))
        out.append(part)
    return out


def _heading_before(part: Element, parent: Element | None) -> Element | None:
    if parent is None:
        return None
    children = list(parent)
    position = next(i for i, c in enumerate(children) if c is part)
    for previous in reversed(children[:position]):
        if (previous.tail or "").strip():
            return None  # text stands between them
        if not isinstance(previous.tag, str):
            continue  # a comment
        if previous.tag in _LEADING:
            return previous
        if "".join(previous.itertext()).strip():
            return None
    return None


def _opens_with_heading(part: Element) -> bool:
    if part.tag in _HEADINGS:
        return True
    """The first text in `part` is a heading's."""
    for node in part.iter():
        if not isinstance(node.tag, str):
            continue
        if node.tag in _HEADINGS:
            return True
        if (node.text or "").strip():
            return False
    return False
