"""SmartArt (DrawingML diagrams, in PPTX and DOCX): the text of the diagram's nodes,
from its data part, in the order the data model lists them."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from .container_reading import Container
from .relationships import R, Relationship

DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
DIAGRAM_URI = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_TEXT_POINTS = (None, "node", "asst")
"""Point types that carry the author's text (transitions, pictures and parents carry
none)."""


def diagram_texts(container: Container, rels: dict[str, Relationship],
                  graphic_data: Element) -> list[str]:
    """The node texts of the diagram `graphic_data` points to; empty when its data part
    is missing or holds no text."""
    ids = graphic_data.find(DGM + "relIds")
    rel = rels.get(ids.get(R + "dm") or "") if ids is not None else None
    if rel is None or rel.external or not container.has(rel.target):
        return []
    texts = []
    for point in container.xml(rel.target).iter(DGM + "pt"):
        if point.get("type") not in _TEXT_POINTS:
            continue
        body = point.find(DGM + "t")
        if body is None:
            continue
        lines = [" ".join("".join(t.text or "" for t in p.iter(A + "t")).split())
                 for p in body.findall(A + "p")]
        text = " ".join(line for line in lines if line)
        if text:
            texts.append(text)
    return texts
