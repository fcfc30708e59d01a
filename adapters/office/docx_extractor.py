"""The DOCX extractor: WordprocessingML read with zipfile and a safe XML parser.

Headings come from outline levels (on the paragraph or its style chain) and from the
built-in "Heading N" and "Title" styles; list paragraphs from numbering properties;
tables, hyperlinks, footnotes and endnotes from their parts; metadata from the core
properties. Blocks are built directly (no HTML detour), so nothing a content-selection
heuristic might drop is at risk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from xml.etree.ElementTree import Element

import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, Link, ListItem
from ...domain.document.markdown_rendering import assemble_document
from ...domain.errors import ErrorKind, SheafError
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .relationships import R, relationships

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
MAIN_PART = "word/document.xml"
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_MAX_NESTING = 9


@attrs.frozen
class _Style:
    name: str
    outline: int | None
    based_on: str | None
    numbered: tuple[str, int] | None


@attrs.frozen
class _Paragraph:
    text: str
    heading: int | None
    is_title: bool
    numbering: tuple[str, int] | None


class DocxExtractor(ContainerExtractor):
    """Extracts a Word document (Office Open XML) in a worker thread."""

    def read(self, container: Container, location: str) -> Document:
        return _DocxReading(container, location).document()


class _DocxReading:
    def __init__(self, container: Container, location: str) -> None:
        if not container.has(MAIN_PART):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"a ZIP archive without {MAIN_PART}: not a DOCX document")
        self.container = container
        self.location = location
        self.rels = relationships(container, MAIN_PART)
        self.styles = self._styles()
        self.ordered_lists = self._ordered_lists()
        self.links: list[Link] = []
        self.note_numbers: dict[tuple[str, str], int] = {}

    def document(self) -> Document:
        body = self.container.xml(MAIN_PART).find(W + "body")
        if body is None:
            raise SheafError(ErrorKind.CORRUPT, f"{MAIN_PART} has no body")
        paragraphs: list[_Paragraph | BlockDraft] = []
        self._walk(body, paragraphs)
        drafts = self._drafts(paragraphs)
        drafts += self._notes()
        drafts = self.container.budget.take(drafts, "the document")
        metadata = core_metadata(self.container)
        if not drafts:
            raise SheafError(ErrorKind.EMPTY, "the document holds no text")
        if metadata.title is None:
            titled = next((p.text for p in paragraphs
                           if isinstance(p, _Paragraph) and p.is_title), None)
            first = titled or next((d.text for d in drafts if d.kind is BlockKind.HEADING), None)
            metadata = attrs.evolve(metadata, title=first)
        return assemble_document(drafts, metadata=metadata, links=self.links)

    # -- the body, in document order

    def _walk(self, parent: Element, out: list[_Paragraph | BlockDraft]) -> None:
        # Walked with a stack, not recursion: content controls nest without limit (20,000
        # in a 3 KB file), and Python's recursion limit would fail the read (issue 30).
        stack = [iter(parent)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
            elif child.tag == W + "p":
                out.append(self._paragraph(child))
            elif child.tag == W + "tbl":
                rows = self._table_rows(child)
                if rows:
                    out.append(BlockDraft(BlockKind.TABLE, rows=rows))
            elif child.tag in (W + "sdt", W + "sdtContent", W + "customXml", W + "ins",
                               MC + "AlternateContent", MC + "Choice"):
                stack.append(iter(child))

    def _paragraph(self, element: Element) -> _Paragraph:
        properties = element.find(W + "pPr")
        style_id = _value(properties, W + "pStyle")
        style = self.styles.get(style_id or "")
        outline = _int(_value(properties, W + "outlineLvl"))
        if outline is None:
            outline = self._style_outline(style_id)
        heading = outline + 1 if outline is not None and outline < 9 else None
        is_title = bool(style and style.name.lower() == "title")
        if heading is None and style is not None:
            match = _HEADING_STYLE.match(style.name)
            if match:
                heading = int(match.group(1))
        numbering = self._numbering(properties, style_id)
        return _Paragraph(_clean(self._text(element)), heading, is_title, numbering)

    def _text(self, element: Element) -> str:
        """The text of `element`'s subtree, its hyperlinks recorded; walked with a stack
        (runs, fields, smart tags and content controls nest without limit)."""
        parts: list[str] = []
        # Each frame: the children still to read, the hyperlink it is (or None) and where
        # its text starts in `parts`.
        stack: list[tuple[Iterator[Element], Element | None, int]] = [(iter(element), None, 0)]
        while stack:
            children, link, start = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if link is not None:
                    text = "".join(parts[start:])
                    target = self._link_target(link)
                    if target and text.strip():
                        self.links.append(Link(_clean(text), target))
                continue
            tag = child.tag
            if tag == W + "t":
                parts.append(child.text or "")
            elif tag in (W + "tab", W + "br", W + "cr"):
                parts.append(" ")
            elif tag in (W + "noBreakHyphen",):
                parts.append("-")
            elif tag in (W + "footnoteReference", W + "endnoteReference"):
                kind = "footnote" if tag == W + "footnoteReference" else "endnote"
                number = self._note_number(kind, child.get(W + "id") or "")
                parts.append(f"[{number}]")
            elif tag == W + "hyperlink":
                stack.append((iter(child), child, len(parts)))
            elif tag in (W + "del", W + "moveFrom", W + "instrText", W + "delText",
                         W + "pPr", W + "rPr", MC + "Fallback"):
                continue  # deleted text, field codes, and the fallback copy of a drawing
            else:  # runs, fields, smart tags, insertions, content controls
                stack.append((iter(child), None, len(parts)))
        return "".join(parts)

    def _link_target(self, element: Element) -> str | None:
        rel = self.rels.get(element.get(R + "id") or "")
        anchor = element.get(W + "anchor")
        if rel is not None and rel.external:
            return rel.target + (f"#{anchor}" if anchor else "")
        return f"#{anchor}" if anchor else None

    def _table_rows(self, table: Element) -> tuple[tuple[str, ...], ...]:
        rows: list[tuple[str, ...]] = []
        for row in table.findall(W + "tr"):  # a nested table is read with its cell
            cells: list[str] = []
            for cell in row.findall(W + "tc"):
                text = " ".join(_clean(self._text(p)) for p in _outer_paragraphs(cell))
                cells.append(_clean(text))
                span = _int(_value(cell.find(W + "tcPr"), W + "gridSpan")) or 1
                cells.extend([""] * (min(span, 64) - 1))
            if any(cells):
                rows.append(tuple(cells))
        return tuple(rows)

    def _drafts(self, paragraphs: list[_Paragraph | BlockDraft]) -> list[BlockDraft]:
        drafts: list[BlockDraft] = []
        items: list[ListItem] = []
        current_list = [""]
        # A document with a Title paragraph puts "Heading 1" one level below it.
        shift = 1 if any(isinstance(p, _Paragraph) and p.is_title for p in paragraphs) else 0

        def flush() -> None:
            if items:
                drafts.append(BlockDraft(BlockKind.LIST, items=tuple(items)))
                items.clear()

        for paragraph in paragraphs:
            if isinstance(paragraph, BlockDraft):
                flush()
                drafts.append(paragraph)
                continue
            if not paragraph.text:
                continue
            if paragraph.is_title:
                flush()
                drafts.append(BlockDraft(BlockKind.HEADING, text=paragraph.text, level=1))
            elif paragraph.heading is not None:
                flush()
                drafts.append(BlockDraft(BlockKind.HEADING, text=paragraph.text,
                                         level=min(paragraph.heading + shift, 6)))
            elif paragraph.numbering is not None:
                num_id, depth = paragraph.numbering
                if items and depth == 0 and num_id != current_list[0]:
                    flush()  # another list starts
                current_list[0] = num_id
                items.append(ListItem(paragraph.text, depth=depth,
                                      ordered=(num_id, depth) in self.ordered_lists))
            else:
                flush()
                drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=paragraph.text))
        flush()
        return drafts

    # -- notes

    def _note_number(self, kind: str, note_id: str) -> int:
        key = (kind, note_id)
        if key not in self.note_numbers:
            self.note_numbers[key] = len(self.note_numbers) + 1
        return self.note_numbers[key]

    def _notes(self) -> list[BlockDraft]:
        texts: dict[tuple[str, str], str] = {}
        for kind in ("footnote", "endnote"):
            root = self.container.optional_xml(f"word/{kind}s.xml")
            if root is None:
                continue
            for note in root.findall(W + kind):
                if note.get(W + "type") in ("separator", "continuationSeparator",
                                            "continuationNotice"):
                    continue
                text = " ".join(_clean(self._text(p)) for p in _outer_paragraphs(note))
                texts[(kind, note.get(W + "id") or "")] = _clean(text)
        drafts = []
        for key, number in sorted(self.note_numbers.items(), key=lambda kv: kv[1]):
            text = texts.get(key)
            if text:
                drafts.append(BlockDraft(BlockKind.FOOTNOTE, text=f"[{number}] {text}",
                                         label=str(number)))
        return drafts

    # -- styles and numbering

    def _styles(self) -> dict[str, _Style]:
        root = self.container.optional_xml("word/styles.xml")
        styles: dict[str, _Style] = {}
        if root is None:
            return styles
        for style in root.findall(W + "style"):
            style_id = style.get(W + "styleId")
            if not style_id:
                continue
            properties = style.find(W + "pPr")
            num = properties.find(W + "numPr") if properties is not None else None
            numbered = None
            if num is not None:
                num_id = _value(num, W + "numId")
                if num_id and num_id != "0":
                    numbered = (num_id, _int(_value(num, W + "ilvl")) or 0)
            styles[style_id] = _Style(_value(style, W + "name") or style_id,
                                      _int(_value(properties, W + "outlineLvl")),
                                      _value(style, W + "basedOn"), numbered)
        return styles

    def _style_outline(self, style_id: str | None) -> int | None:
        seen: set[str] = set()
        while style_id and style_id not in seen and len(seen) < _MAX_NESTING:
            seen.add(style_id)
            style = self.styles.get(style_id)
            if style is None:
                return None
            if style.outline is not None:
                return style.outline
            if _HEADING_STYLE.match(style.name) or style.name.lower() == "title":
                return None  # named heading styles are read from their name
            style_id = style.based_on
        return None

    def _numbering(self, properties: Element | None, style_id: str | None
                   ) -> tuple[str, int] | None:
        num = properties.find(W + "numPr") if properties is not None else None
        if num is not None:
            num_id = _value(num, W + "numId")
            if not num_id or num_id == "0":
                return None  # numbering switched off for this paragraph
            return num_id, min(_int(_value(num, W + "ilvl")) or 0, 8)
        style = self.styles.get(style_id or "")
        return style.numbered if style else None

    def _ordered_lists(self) -> set[tuple[str, int]]:
        """The (numId, level) pairs whose numbers are printed (not bullets)."""
        root = self.container.optional_xml("word/numbering.xml")
        if root is None:
            return set()
        formats: dict[str, dict[int, str]] = {}
        for abstract in root.findall(W + "abstractNum"):
            levels = {}
            for level in abstract.findall(W + "lvl"):
                levels[_int(level.get(W + "ilvl")) or 0] = _value(level, W + "numFmt") or ""
            formats[abstract.get(W + "abstractNumId") or ""] = levels
        ordered: set[tuple[str, int]] = set()
        for num in root.findall(W + "num"):
            levels = formats.get(_value(num, W + "abstractNumId") or "", {})
            for depth, fmt in levels.items():
                if fmt not in ("bullet", "none", ""):
                    ordered.add((num.get(W + "numId") or "", depth))
        return ordered


def _outer_paragraphs(parent: Element) -> Iterator[Element]:
    """The paragraphs under `parent` that are not inside another paragraph: a paragraph's
    text already holds those nested in it (text boxes), and reading each nested one again
    would repeat text quadratically with the nesting depth."""
    stack = [iter(parent)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.tag == W + "p":
            yield child
        else:
            stack.append(iter(child))


def _value(parent: Element | None, tag: str) -> str | None:
    if parent is None:
        return None
    element = parent.find(tag)
    return element.get(W + "val") if element is not None else None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _clean(text: str) -> str:
    return " ".join(text.split())

