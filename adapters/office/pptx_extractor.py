"""The PPTX extractor: PresentationML read with zipfile and a safe XML parser.

One section per slide in presentation order, headed by the slide's title (or "Slide N"
when it has none); its text frames in reading order (top to bottom, then left to
right), tables as tables, and the speaker notes under a "Speaker notes" sub-heading.
Every block knows its slide number as its page.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.etree.ElementTree import Element

import anyio
import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, ListItem
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionLimits,
)
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.figures import chart_drafts, figure_drafts
from .chart_reading import chart_reference, read_chart
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .diagram_reading import DIAGRAM_URI, diagram_texts
from .embedded_packages import PackageReader, embedded_drafts
from .relationships import R, relationships

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
MAIN_PART = "ppt/presentation.xml"
_TITLES = ("title", "ctrTitle")
_NOT_CONTENT = ("sldNum", "dt", "ftr", "hdr", "sldImg")
_BODY_PLACEHOLDERS = (None, "body", "obj", "subTitle")
_GRAPHIC_KINDS = {"http://schemas.openxmlformats.org/presentationml/2006/ole":
                  Omission.EMBEDDED_OBJECT,
                  "http://schemas.openxmlformats.org/drawingml/2006/diagram": Omission.DIAGRAM}


@attrs.frozen
class _Shape:
    top: int
    left: int
    order: int
    drafts: tuple[BlockDraft, ...]
    title: str | None = None


class PptxExtractor(ContainerExtractor):
    """Extracts a PowerPoint deck (Office Open XML) in a worker thread; `embedded` reads
    the packages embedded in its slides (by kind: `xlsx`, `docx`), none when not given."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 embedded: Mapping[str, PackageReader] | None = None,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        super().__init__(limiter, extraction_limits=extraction_limits)
        self.embedded = dict(embedded or {})

    def read(self, container: Container, location: str) -> Document:
        return _deck(container, self.embedded)


def _deck(container: Container, embedded: Mapping[str, PackageReader]) -> Document:
    if not container.has(MAIN_PART):
        raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                         f"a ZIP archive without {MAIN_PART}: not a PPTX presentation")
    rels = relationships(container, MAIN_PART)
    presentation = container.xml(MAIN_PART)
    slide_list = presentation.find(P + "sldIdLst")
    drafts: list[BlockDraft] = []
    titles: list[str] = []
    tally = OmissionTally()
    embedded_notes: list[str] = []
    # A part is read once: a slide (or speaker notes) listed again is the same text, and
    # reading it again is how a 5 KB deck becomes gigabytes (issue 30).
    read_parts: set[str] = set()
    for number, slide_id in enumerate(slide_list if slide_list is not None else [], 1):
        rel = rels.get(slide_id.get(R + "id") or "")
        if rel is None or rel.external or not container.has(rel.target) \
                or rel.target in read_parts:
            continue
        read_parts.add(rel.target)
        context = _SlideContext(container, rel.target, number, tally, embedded,
                                embedded_notes, read_parts)
        slide_drafts, title = _slide(context)
        drafts += container.budget.take(slide_drafts, f"slide {number}")
        if title:
            titles.append(title)
    if not any(d.kind is not BlockKind.HEADING for d in drafts) and not titles:
        raise SheafError(ErrorKind.EMPTY, "the presentation holds no text")
    metadata = core_metadata(container)
    if metadata.title is None and titles:
        metadata = attrs.evolve(metadata, title=titles[0])
    return assemble_document(drafts, metadata=metadata, page_count=len(slide_list or []),
                             notes=[*embedded_notes, tally.note()])


@attrs.frozen
class _SlideContext:
    container: Container
    part: str
    number: int
    tally: OmissionTally
    embedded: Mapping[str, PackageReader]
    embedded_notes: list[str]
    read_parts: set[str]
    """Parts already read for this deck (slides, notes, comments): each is read once."""


def _slide(context: _SlideContext) -> tuple[list[BlockDraft], str | None]:
    container, part, number = context.container, context.part, context.number
    root = container.xml(part)
    tree = root.find(f"{P}cSld/{P}spTree")
    shapes: list[_Shape] = []
    if tree is not None:
        _collect(tree, context, shapes)
    title = next((s.title for s in shapes if s.title), None)
    ordered = sorted((s for s in shapes if not s.title), key=lambda s: (s.top, s.left, s.order))
    drafts = [BlockDraft(BlockKind.HEADING, text=title or f"Slide {number}", level=1,
                         pages=(number,))]
    for shape in ordered:
        drafts += shape.drafts
    comments = _comments(container, part, number, context.read_parts)
    if comments:
        drafts.append(BlockDraft(BlockKind.HEADING, text="Comments", level=2,
                                 pages=(number,)))
        drafts += comments
    notes = _notes(container, part, number, context.read_parts)
    if notes:
        drafts.append(BlockDraft(BlockKind.HEADING, text="Speaker notes", level=2,
                                 pages=(number,)))
        drafts += notes
    return drafts, title


def _collect(tree: Element, context: _SlideContext, shapes: list[_Shape],
             inherited: tuple[int, int] | None = None) -> None:
    """Text shapes, tables, charts, pictures and groups of a shape tree; a shape without
    its own position (a placeholder placed by its layout) takes the position of the shape
    before it."""
    number = context.number
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
                                     title=" ".join(text for text, _, _ in paragraphs)))
                continue
            as_list = (placeholder is not None and kind in _BODY_PLACEHOLDERS
                       and len(paragraphs) > 1) or any(n for _, _, n in paragraphs)
            shapes.append(_Shape(*position, len(shapes), _text_drafts(paragraphs, number,
                                                                         as_list)))
        elif child.tag == P + "graphicFrame":
            drafts = _graphic_frame(child, context)
            if drafts:
                shapes.append(_Shape(*position, len(shapes), tuple(drafts)))
        elif child.tag == P + "pic":
            drafts = _picture(child, context)
            if drafts:
                shapes.append(_Shape(*position, len(shapes), tuple(drafts)))
        elif child.tag in (P + "grpSp", MC + "AlternateContent", MC + "Choice"):
            # Groups are walked; of alternate content the Choice, not the Fallback (which
            # repeats the same shapes for older readers).
            _collect(child, context, shapes, position)


def _graphic_frame(frame: Element, context: _SlideContext) -> list[BlockDraft]:
    """A table, a chart (its data as a table), a SmartArt diagram (its nodes' text as a
    list), or an object counted as left out."""
    pages = (context.number,)
    data = frame.find(f"{A}graphic/{A}graphicData")
    if data is None:
        return []
    table = data.find(A + "tbl")
    if table is not None:
        rows = _table_rows(table)
        return [BlockDraft(BlockKind.TABLE, rows=rows, pages=pages)] if rows else []
    reference = chart_reference(data)
    if reference is not None:
        rel = relationships(context.container, context.part).get(reference)
        if rel is None or rel.external:
            context.tally.add(Omission.CHART_WITHOUT_DATA)
            return []
        chart = read_chart(context.container, rel.target, context.tally)
        return chart_drafts(chart, context.tally, pages=pages) if chart else []
    if data.get("uri") == DIAGRAM_URI:
        texts = diagram_texts(context.container, relationships(context.container,
                                                               context.part), data)
        if texts:
            return [BlockDraft(BlockKind.LIST, items=tuple(ListItem(t) for t in texts),
                               pages=pages)]
    ole = next(data.iter(P + "oleObj"), None)
    if ole is not None:
        rel = relationships(context.container, context.part).get(ole.get(R + "id") or "")
        if rel is not None and not rel.external:
            return embedded_drafts(context.container, rel.target, context.embedded,
                                   context.tally, context.embedded_notes, level=1,
                                   pages=pages)
    omission = _GRAPHIC_KINDS.get(data.get("uri") or "", Omission.UNSUPPORTED_PART)
    context.tally.add(omission)
    return []


def _picture(picture: Element, context: _SlideContext) -> list[BlockDraft]:
    properties = picture.find(f"{P}nvPicPr/{P}cNvPr")
    media = picture.find(f"{P}nvPicPr/{P}nvPr")
    if media is not None and any(m.tag in (A + "videoFile", A + "audioFile", A + "wavAudioFile",
                                           A + "quickTimeFile") for m in media):
        context.tally.add(Omission.MEDIA)
        return []
    if properties is None:
        context.tally.add(Omission.IMAGE_WITHOUT_TEXT)
        return []
    return figure_drafts(properties.get("descr"), properties.get("title"), context.tally,
                         pages=(context.number,))


def _table_rows(table: Element) -> tuple[tuple[str, ...], ...]:
    """Rows of a DrawingML table, a merged cell's value repeated over the cells it spans
    (`hMerge` and `vMerge` mark the covered cells)."""
    rows: list[list[str]] = []
    for row in table.findall(A + "tr"):
        values: list[str] = []
        for column, cell in enumerate(row.findall(A + "tc")):
            if cell.get("hMerge") in ("1", "true") and values:
                values.append(values[-1])
            elif cell.get("vMerge") in ("1", "true") and rows and column < len(rows[-1]):
                values.append(rows[-1][column])
            else:
                values.append(_frame_text(cell.find(A + "txBody")))
        rows.append(values)
    return tuple(tuple(r) for r in rows if any(r))


def _position(shape: Element) -> tuple[int, int] | None:
    for path in (f"{P}spPr/{A}xfrm/{A}off", f"{P}xfrm/{A}off", f"{P}grpSpPr/{A}xfrm/{A}off"):
        offset = shape.find(path)
        if offset is not None:
            try:
                return int(offset.get("y") or 0), int(offset.get("x") or 0)
            except ValueError:
                return None
    return None


def _paragraphs(body: Element) -> list[tuple[str, int, bool]]:
    """(text, indent level, numbered) of each non-empty paragraph of a text body; a
    paragraph is numbered when its bullet is an automatic number (`a:buAutoNum`)."""
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
            numbered = properties is not None and properties.find(A + "buAutoNum") is not None
            found.append((text, min(int(level), 8) if level and level.isdigit() else 0,
                          numbered))
    return found


def _frame_text(body: Element | None) -> str:
    return " ".join(text for text, _, _ in _paragraphs(body)) if body is not None else ""


def _text_drafts(paragraphs: list[tuple[str, int, bool]], number: int, as_list: bool
                 ) -> tuple[BlockDraft, ...]:
    if as_list:
        return (BlockDraft(BlockKind.LIST, items=tuple(ListItem(t, depth=d, ordered=n)
                                                        for t, d, n in paragraphs),
                           pages=(number,)),)
    return tuple(BlockDraft(BlockKind.PARAGRAPH, text=t, pages=(number,))
                 for t, _, _ in paragraphs)


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


def _comments(container: Container, slide_part: str, number: int, read_parts: set[str]
              ) -> list[BlockDraft]:
    """The slide's review comments (legacy `p:cmLst` parts), each "[Author (initials),
    when]: text"; a comments part another slide already showed is not read again."""
    drafts: list[BlockDraft] = []
    authors: dict[str, str] | None = None
    for rel in relationships(container, slide_part).values():
        if rel.kind != "comments" or rel.external or not container.has(rel.target) \
                or rel.target in read_parts:
            continue
        read_parts.add(rel.target)
        if authors is None:
            listing = container.optional_xml("ppt/commentAuthors.xml")
            authors = {a.get("id") or "": _author(a) for a in
                       (listing.iter(P + "cmAuthor") if listing is not None else [])}
        for comment in container.xml(rel.target).iter(P + "cm"):
            text = " ".join((comment.findtext(P + "text") or "").split())
            if text:
                who = [authors.get(comment.get("authorId") or "", ""),
                       comment.get("dt") or ""]
                label = ", ".join(w for w in who if w)
                drafts.append(BlockDraft(BlockKind.PARAGRAPH,
                                         text=f"[{label}]: {text}" if label else text,
                                         pages=(number,)))
    return drafts


def _author(author: Element) -> str:
    name, initials = author.get("name") or "", author.get("initials") or ""
    return f"{name} ({initials})" if name and initials else name or initials
