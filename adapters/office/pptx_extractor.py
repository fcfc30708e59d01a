"""The PPTX extractor: PresentationML read with zipfile and a safe XML parser.

One section per slide in presentation order, headed by the slide's title (or "Slide N"
when it has none); its text frames in reading order (top to bottom, then left to
right), tables as tables, and the speaker notes under a "Speaker notes" sub-heading.
Every block knows its slide number as its page.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, ListItem
from ...domain.document.markdown_rendering import assemble_document
from ...domain.errors import ErrorKind, SheafError
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .relationships import R, relationships

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
MAIN_PART = "ppt/presentation.xml"
_TITLES = ("title", "ctrTitle")
_NOT_CONTENT = ("sldNum", "dt", "ftr", "hdr", "sldImg")
_BODY_PLACEHOLDERS = (None, "body", "obj", "subTitle")


@attrs.frozen
class _Shape:
    top: int
    left: int
    order: int
    drafts: tuple[BlockDraft, ...]
    title: str | None = None


class PptxExtractor(ContainerExtractor):
    """Extracts a PowerPoint deck (Office Open XML) in a worker thread."""

    def read(self, container: Container, location: str) -> Document:
        return _deck(container)


def _deck(container: Container) -> Document:
    if not container.has(MAIN_PART):
        raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                         f"a ZIP archive without {MAIN_PART}: not a PPTX presentation")
    rels = relationships(container, MAIN_PART)
    presentation = container.xml(MAIN_PART)
    slide_list = presentation.find(P + "sldIdLst")
    drafts: list[BlockDraft] = []
    titles: list[str] = []
    # A part is read once: a slide (or speaker notes) listed again is the same text, and
    # reading it again is how a 5 KB deck becomes gigabytes (issue 30).
    read_parts: set[str] = set()
    for number, slide_id in enumerate(slide_list if slide_list is not None else [], 1):
        rel = rels.get(slide_id.get(R + "id") or "")
        if rel is None or rel.external or not container.has(rel.target) \
                or rel.target in read_parts:
            continue
        read_parts.add(rel.target)
        slide_drafts, title = _slide(container, rel.target, number, read_parts)
        drafts += container.budget.take(slide_drafts, f"slide {number}")
        if title:
            titles.append(title)
    if not any(d.kind is not BlockKind.HEADING for d in drafts) and not titles:
        raise SheafError(ErrorKind.EMPTY, "the presentation holds no text")
    metadata = core_metadata(container)
    if metadata.title is None and titles:
        metadata = attrs.evolve(metadata, title=titles[0])
    return assemble_document(drafts, metadata=metadata, page_count=len(slide_list or []))


def _slide(container: Container, part: str, number: int, read_parts: set[str]
           ) -> tuple[list[BlockDraft], str | None]:
    root = container.xml(part)
    tree = root.find(f"{P}cSld/{P}spTree")
    shapes: list[_Shape] = []
    if tree is not None:
        _collect(tree, number, shapes)
    title = next((s.title for s in shapes if s.title), None)
    ordered = sorted((s for s in shapes if not s.title), key=lambda s: (s.top, s.left, s.order))
    drafts = [BlockDraft(BlockKind.HEADING, text=title or f"Slide {number}", level=1,
                         pages=(number,))]
    for shape in ordered:
        drafts += shape.drafts
    notes = _notes(container, part, number, read_parts)
    if notes:
        drafts.append(BlockDraft(BlockKind.HEADING, text="Speaker notes", level=2,
                                 pages=(number,)))
        drafts += notes
    return drafts, title


def _collect(tree: Element, number: int, shapes: list[_Shape],
             inherited: tuple[int, int] | None = None) -> None:
    """Text shapes, tables and groups of a shape tree; a shape without its own position
    (a placeholder placed by its layout) takes the position of the shape before it."""
    last = inherited or (0, 0)
    for child in tree:
        position = _position(child) or last
        last = position
        if child.tag == P + "sp":
            placeholder = child.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
            kind = placeholder.get("type") if placeholder is not None else None
            if kind in _NOT_CONTENT:
                continue
            body = child.find(P + "txBody")
            if body is None:
                continue
            paragraphs = _paragraphs(body)
            if not paragraphs:
                continue
            if kind in _TITLES:
                shapes.append(_Shape(*position, len(shapes), (),
                                     title=" ".join(text for text, _ in paragraphs)))
                continue
            as_list = placeholder is not None and kind in _BODY_PLACEHOLDERS \
                and len(paragraphs) > 1
            shapes.append(_Shape(*position, len(shapes), _text_drafts(paragraphs, number,
                                                                         as_list)))
        elif child.tag == P + "graphicFrame":
            table = child.find(f"{A}graphic/{A}graphicData/{A}tbl")
            if table is not None:
                rows = tuple(tuple(_frame_text(cell.find(A + "txBody"))
                                   for cell in row.findall(A + "tc"))
                             for row in table.findall(A + "tr"))
                rows = tuple(r for r in rows if any(r))
                if rows:
                    shapes.append(_Shape(*position, len(shapes),
                                         (BlockDraft(BlockKind.TABLE, rows=rows,
                                                     pages=(number,)),)))
        elif child.tag in (P + "grpSp", MC + "AlternateContent", MC + "Choice"):
            # Groups are walked; of alternate content the Choice, not the Fallback (which
            # repeats the same shapes for older readers).
            _collect(child, number, shapes, position)


def _position(shape: Element) -> tuple[int, int] | None:
    for path in (f"{P}spPr/{A}xfrm/{A}off", f"{P}xfrm/{A}off", f"{P}grpSpPr/{A}xfrm/{A}off"):
        offset = shape.find(path)
        if offset is not None:
            try:
                return int(offset.get("y") or 0), int(offset.get("x") or 0)
            except ValueError:
                return None
    return None


def _paragraphs(body: Element) -> list[tuple[str, int]]:
    """(text, indent level) of each non-empty paragraph of a text body."""
    found = []
    for paragraph in body.findall(A + "p"):
        parts = []
        for child in paragraph:
            if child.tag in (A + "r", A + "fld"):
                parts.append("".join(t.text or "" for t in child.iter(A + "t")))
            elif child.tag == A + "br":
                parts.append(" ")
        text = " ".join("".join(parts).split())
        if text:
            properties = paragraph.find(A + "pPr")
            level = properties.get("lvl") if properties is not None else None
            found.append((text, min(int(level), 8) if level and level.isdigit() else 0))
    return found


def _frame_text(body: Element | None) -> str:
    return " ".join(text for text, _ in _paragraphs(body)) if body is not None else ""


def _text_drafts(paragraphs: list[tuple[str, int]], number: int, as_list: bool
                 ) -> tuple[BlockDraft, ...]:
    if as_list:
        return (BlockDraft(BlockKind.LIST, items=tuple(ListItem(t, depth=d)
                                                        for t, d in paragraphs),
                           pages=(number,)),)
    return tuple(BlockDraft(BlockKind.PARAGRAPH, text=t, pages=(number,))
                 for t, _ in paragraphs)


def _notes(container: Container, slide_part: str, number: int, read_parts: set[str]
           ) -> list[BlockDraft]:
    notes_rel = next((r for r in relationships(container, slide_part).values()
                      if r.kind == "notesSlide" and not r.external), None)
    if notes_rel is None or not container.has(notes_rel.target) \
            or notes_rel.target in read_parts:
        return []
    read_parts.add(notes_rel.target)
    tree = container.xml(notes_rel.target).find(f"{P}cSld/{P}spTree")
    drafts: list[BlockDraft] = []
    for shape in tree.iter(P + "sp") if tree is not None else []:
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if placeholder is None or placeholder.get("type") != "body":
            continue
        body = shape.find(P + "txBody")
        if body is not None:
            drafts += _text_drafts(_paragraphs(body), number, as_list=False)
    return drafts
