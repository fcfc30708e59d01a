"""Tables that lay a page out rather than hold data (issue 29).

Pages of the table-layout era put the whole article, headings and paragraphs and all,
into table cells, often tables within tables. Read as a data table, the article turns
into one grid of flattened cells; read as layout, each cell is a container walked like
a <div>. A table is layout when a cell holds what data cells do not: a heading, a
nested table, or more than one paragraph.

The same era indented whole articles with <blockquote>: one that holds headings or runs
to many paragraphs is the page's margin, not a quotation.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
LAYOUT_PARAGRAPHS = 2
"""Paragraphs in one cell that make it a page region, not a data value."""


def is_layout_table(table: Element) -> bool:
    """True when some cell of `table` holds a heading, a table or several paragraphs."""
    for cell in table_cells(table):
        paragraphs = 0
        for node in cell.iter():
            tag = node.tag
            if tag in _HEADINGS or (tag == "table" and node is not cell):
                return True
            if tag == "p":
                paragraphs += 1
                if paragraphs >= LAYOUT_PARAGRAPHS:
                    return True
    return False


LAYOUT_QUOTE_PARAGRAPHS = 6
"""Paragraphs of its own that make a blockquote a page region: quotations run shorter."""


def is_layout_quote(quote: Element) -> bool:
    """True when a <blockquote> holds a heading or at least `LAYOUT_QUOTE_PARAGRAPHS`
    paragraphs of its own."""
    paragraphs = 0
    for child in quote:
        tag = child.tag
        if tag in _HEADINGS:
            return True
        if tag == "p":
            paragraphs += 1
            if paragraphs >= LAYOUT_QUOTE_PARAGRAPHS:
                return True
    return False


def table_cells(table: Element) -> list[Element]:
    """The table's own cells (not those of tables nested in them), in document order."""
    cells: list[Element] = []
    for child in table:
        if not isinstance(child.tag, str):
            continue
        rows = ([r for r in child if isinstance(r.tag, str) and r.tag == "tr"]
                if child.tag in ("thead", "tbody", "tfoot") else
                [child] if child.tag == "tr" else [])
        for row in rows:
            cells.extend(c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th"))
    return cells
