"""An article set as parts, some folded into collapsible panels, is the whole of its parts.

Pages that set a long text as a lede, text modules and "read more" panels (Bootstrap's
`collapse`, accordions, `<details>`) put the longest part inside a panel: the best
score then falls inside one panel and the rest of the article is left out. When the
chosen container sits inside such a panel, the article is the closest ancestor outside
the panel widget that holds a paragraph's worth of prose beside it, when few of its words
are links (a sidebar of folded FAQ boxes stays a sidebar).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree.ElementTree import Element

from .element_rules import tokens

COLLAPSIBLE = re.compile(
    r"^(?:collapse|collapsible|panel-collapse|expandable|read-?more(?:-content)?|"
    r"accordion(?:[-_](?:item|content|body|panel|collapse|group|section))?)$",
    re.IGNORECASE)
"""Class tokens that make an element a foldable panel (whole tokens: `navbar-collapse`
is a menu, `collapsed` a state of its toggle, `accordion-button` the toggle)."""
MAX_LINK_DENSITY = 0.2
MIN_PROSE_BESIDE = 300
"""Paragraph text outside the widget that makes its container an article of parts."""


def is_collapsible(element: Element) -> bool:
    """A panel a click unfolds: `<details>`, or a class token naming a folding panel."""
    return element.tag == "details" or any(COLLAPSIBLE.match(t) for t in tokens(element))


def out_of_collapsed_panel(root: Element, parents: dict[Element, Element], body: Element,
                           prose: Callable[[Element], int],
                           link_density: Callable[[Element], float]) -> Element | None:
    """The container of the article's parts when `root` lies inside a collapsible panel,
    or None (not inside one, or nothing but the widget around it)."""
    outermost: Element | None = None
    node: Element | None = root
    while node is not None and node is not body:
        if is_collapsible(node):
            outermost = node
        node = parents.get(node)
    if outermost is None:
        return None
    # `<details>` is not scored as a container: the root's prose stands for it.
    widget = max(prose(outermost), prose(root))
    node = parents.get(outermost)
    while node is not None and node is not body:
        held = prose(node)
        if held - widget >= MIN_PROSE_BESIDE:
            return node if link_density(node) <= MAX_LINK_DENSITY else None
        node = parents.get(node)
    return None
