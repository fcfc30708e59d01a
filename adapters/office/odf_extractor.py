"""The OpenDocument extractor: ODT, ODS and ODP packages read with zipfile and the safe
XML parser.

The kind comes from the package's `mimetype` member (else from the body's first
element). Text documents give headings (outline levels; the Title and Subtitle styles
above them), lists with their depth and numbering, tables (spanned cells repeating
their value), notes, pictures' titles and descriptions, equations (the StarMath or
MathML of embedded formula objects) and charts (the data table an ODF chart carries).
Spreadsheets give a section per sheet with its separate tables; presentations a section
per slide headed by its title, speaker notes after it. Metadata comes from `meta.xml`.
"""

from __future__ import annotations

import posixpath
from xml.etree.ElementTree import Element

import anyio
import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, Link, ListItem
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionLimits,
)
from ...domain.document.link_list import with_link_list
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.metadata import DocumentMetadata
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.figures import figure_drafts
from ...domain.office.sheet_tables import DEFAULT_SHEET_LIMITS, SheetLimits, sheet_blocks
from ...domain.office.zip_container import resolve_member
from .container_extractor import ContainerExtractor
from .container_reading import Container

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}"
META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
DC = "{http://purl.org/dc/elements/1.1/}"
XLINK = "{http://www.w3.org/1999/xlink}"
MATHML = "{http://www.w3.org/1998/Math/MathML}"
CONTENT_PART = "content.xml"
ODF_TYPES = {"application/vnd.oasis.opendocument.text": "text",
             "application/vnd.oasis.opendocument.spreadsheet": "spreadsheet",
             "application/vnd.oasis.opendocument.presentation": "presentation",
             "application/vnd.oasis.opendocument.text-template": "text",
             "application/vnd.oasis.opendocument.spreadsheet-template": "spreadsheet",
             "application/vnd.oasis.opendocument.presentation-template": "presentation"}
_MAX_DEPTH = 64
_MAX_REPEAT = 1_000
"""Repeated rows or columns written out at most this many times (sheets declare a
million empty rows as one repeated row)."""
_CONTAINERS = (TEXT + "section", TEXT + "index-body", TEXT + "table-of-content",
               TEXT + "alphabetical-index", TEXT + "illustration-index",
               TEXT + "bibliography", TEXT + "user-index", TEXT + "object-index",
               TEXT + "table-index", TEXT + "change", TEXT + "tracked-changes")


class OdfExtractor(ContainerExtractor):
    """Extracts an OpenDocument text, spreadsheet or presentation in a worker thread."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 limits: SheetLimits = DEFAULT_SHEET_LIMITS,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        # The sheet limits' cell caps are the budget's, as for XLSX: one setting, not two.
        super().__init__(limiter, extraction_limits=attrs.evolve(
            extraction_limits, max_cells=limits.max_cells,
            max_cell_characters=limits.max_cell_characters))
        self.limits = limits

    def read(self, container: Container, location: str) -> Document:
        return _OdfReading(container, self.limits).document()


class _OdfReading:
    def __init__(self, container: Container, limits: SheetLimits) -> None:
        if not container.has(CONTENT_PART):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"a ZIP archive without {CONTENT_PART}: not an OpenDocument file")
        self.container = container
        self.limits = limits
        self.tally = OmissionTally()
        self.links: list[Link] = []
        self.notes: list[BlockDraft] = []
        self.pending: list[BlockDraft] = []
        self.budget = container.budget
        self.list_style = ""
        root = container.xml(CONTENT_PART)
        body = root.find(OFFICE + "body")
        if root.tag != OFFICE + "document-content" or body is None or not len(body):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"{CONTENT_PART} is not an OpenDocument body")
        self.body = body[0]
        self.styles = _paragraph_styles(root, container.optional_xml("styles.xml"))
        self.list_styles = _list_styles(root, container.optional_xml("styles.xml"))

    def document(self) -> Document:
        kind = self.body.tag.removeprefix(OFFICE)
        if kind == "text":
            drafts = self._flow(self.body, 0)
            if any(s == "title" for s in self.styles.values()):
                drafts = [attrs.evolve(d, level=min(d.level + 1, 6))
                          if d.kind is BlockKind.HEADING and d.label != "title" else d
                          for d in drafts]
            drafts += self.notes
        elif kind == "spreadsheet":
            drafts = self._spreadsheet()
        elif kind == "presentation":
            drafts = self._presentation()
        else:
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"OpenDocument {kind} files are not supported (sheaf reads "
                             "text documents, spreadsheets and presentations)")
        drafts = [attrs.evolve(d, label=None) if d.label == "title" else d for d in drafts]
        if not any(d.kind is not BlockKind.HEADING for d in drafts) and not drafts:
            raise SheafError(ErrorKind.EMPTY, "the document holds no text")
        metadata = self._metadata()
        if metadata.title is None and kind != "spreadsheet":  # sheet names are no titles
            first = next((d.text for d in drafts if d.kind is BlockKind.HEADING), None)
            metadata = attrs.evolve(metadata, title=first)
        # Table cells were spent as the grids were built; the rest of the text is spent
        # here, once (ADR-0029). Drafts without rows come back from `take` unchanged.
        self.budget.take([d for d in drafts if d.kind is not BlockKind.TABLE], "the document")
        drafts = with_link_list(drafts, self.links, self.budget)
        return assemble_document(drafts, metadata=metadata, links=self.links,
                                 notes=[self.tally.note()])

    # -- text flow

    def _flow(self, parent: Element, depth: int) -> list[BlockDraft]:
        drafts: list[BlockDraft] = []
        for child in parent:
            drafts += self._block(child, depth)
        return drafts

    def _block(self, element: Element, depth: int) -> list[BlockDraft]:
        if depth > _MAX_DEPTH:
            return []
        tag = element.tag
        out: list[BlockDraft] = []
        if tag == TEXT + "h":
            text = self._inline(element)
            level = _int(element.get(TEXT + "outline-level")) or 1
            if text:
                out.append(BlockDraft(BlockKind.HEADING, text=text, level=min(level, 6)))
        elif tag == TEXT + "p":
            text = self._inline(element)
            role = self.styles.get(element.get(TEXT + "style-name") or "")
            if text and role == "title":
                out.append(BlockDraft(BlockKind.HEADING, text=text, level=1, label="title"))
            elif text and role == "subtitle":
                out.append(BlockDraft(BlockKind.HEADING, text=text, level=2, label="title"))
            elif text:
                out.append(BlockDraft(BlockKind.PARAGRAPH, text=text))
        elif tag == TEXT + "list":
            items: list[ListItem] = []
            self._list(element, 0, items, depth)
            if items:
                out.append(BlockDraft(BlockKind.LIST, items=tuple(items)))
        elif tag == TABLE + "table":
            out += self._table(element, depth)
        elif tag in _CONTAINERS or tag == DRAW + "g":
            out += self._flow(element, depth + 1)
        elif tag == DRAW + "frame":
            out += self._frame(element, depth + 1)
        elif tag in (DRAW + "custom-shape", DRAW + "rect", DRAW + "ellipse"):
            out += self._flow(element, depth + 1)  # shapes' own text paragraphs
        out += self.pending
        self.pending.clear()
        return out

    def _list(self, element: Element, level: int, items: list[ListItem], depth: int) -> None:
        ordered = self._ordered(element, level)
        for item in element:
            if item.tag not in (TEXT + "list-item", TEXT + "list-header"):
                continue
            for child in item:
                if child.tag in (TEXT + "p", TEXT + "h"):
                    text = self._inline(child)
                    if text:
                        items.append(ListItem(text, depth=min(level, 8), ordered=ordered))
                elif child.tag == TEXT + "list" and depth < _MAX_DEPTH:
                    self._list(child, level + 1, items, depth + 1)

    def _ordered(self, element: Element, level: int) -> bool:
        # A list that continues another (or is nested in one) has no style of its own.
        name = element.get(TEXT + "style-name")
        if name:
            self.list_style = name
        levels = self.list_styles.get(name or self.list_style, {})
        return levels.get(level + 1, False)

    def _inline(self, element: Element) -> str:
        """A paragraph's text, white space collapsed as ODF does."""
        return " ".join(self._raw_inline(element, 0).split())

    def _raw_inline(self, element: Element, depth: int) -> str:
        parts: list[str] = [element.text or ""]
        for child in element:
            tag = child.tag
            if depth > _MAX_DEPTH:
                break
            if tag == TEXT + "s" or tag in (TEXT + "tab", TEXT + "line-break"):
                parts.append(" ")
            elif tag == TEXT + "note":
                parts.append(self._note(child))
            elif tag == TEXT + "a":
                text = self._raw_inline(child, depth + 1)
                href = child.get(XLINK + "href")
                if href and text.strip():
                    self.links.append(Link(" ".join(text.split()), href))
                parts.append(text)
            elif tag in (DRAW + "frame", DRAW + "a", DRAW + "g"):
                parts.append(self._frame_inline(child, depth + 1))
            elif tag in (OFFICE + "annotation", OFFICE + "annotation-end",
                         TEXT + "tracked-changes", TEXT + "bookmark-ref"):
                if tag == OFFICE + "annotation":
                    self.tally.add(Omission.COMMENT)
            else:  # spans, fields, bookmarks, meta
                parts.append(self._raw_inline(child, depth + 1))
            parts.append(child.tail or "")
        return "".join(parts)

    def _frame_inline(self, frame: Element, depth: int) -> str:
        """A frame anchored in a line: an equation stays in the line; pictures, charts
        and text boxes become blocks after the paragraph."""
        texts: list[str] = []
        for child in frame:
            if child.tag == DRAW + "object":
                formula = self._object(child)
                if formula is not None:
                    texts.append(formula)
            elif child.tag == DRAW + "text-box":
                self.pending.extend(self._flow(child, depth + 1))
            elif child.tag == DRAW + "object-ole":
                self.tally.add(Omission.EMBEDDED_OBJECT)
            elif child.tag == DRAW + "image":
                if not any(c.tag == DRAW + "image" for c in frame[:list(frame).index(child)]):
                    self._picture(frame)
            elif child.tag in (DRAW + "frame", DRAW + "a", DRAW + "g"):
                texts.append(self._frame_inline(child, depth + 1))
        known = (DRAW + "image", DRAW + "object", DRAW + "object-ole", DRAW + "text-box",
                 DRAW + "frame", DRAW + "a", DRAW + "g")
        if frame.tag == DRAW + "frame" and not any(c.tag in known for c in frame):
            self.tally.add(Omission.UNSUPPORTED_PART)  # plug-ins, applets, floating frames
        return " ".join(t for t in texts if t)

    def _frame(self, frame: Element, depth: int) -> list[BlockDraft]:
        """A frame standing as a block (slides, sheets, page-anchored frames): its text
        box, table, picture, equation or chart."""
        out: list[BlockDraft] = []
        for child in frame:
            if child.tag == DRAW + "text-box":
                out += self._flow(child, depth + 1)
            elif child.tag == TABLE + "table":
                out += self._table(child, depth + 1)
            elif child.tag == DRAW + "image":
                self._picture(frame)
                break  # the other images are the same picture in other formats
            elif child.tag == DRAW + "object":
                formula = self._object(child)
                if formula:
                    out.append(BlockDraft(BlockKind.FORMULA, text=formula))
            elif child.tag == DRAW + "object-ole":
                self.tally.add(Omission.EMBEDDED_OBJECT)
        out += self.pending
        self.pending.clear()
        return out

    def _picture(self, frame: Element) -> None:
        title = frame.findtext(SVG + "title")
        description = frame.findtext(SVG + "desc")
        self.pending.extend(figure_drafts(description, title, self.tally))

    def _object(self, element: Element) -> str | None:
        """An embedded formula's text (inline); a chart's data table goes after the
        paragraph. None when the object is neither."""
        href = (element.get(XLINK + "href") or "").removeprefix("./").rstrip("/")
        if not href:
            self.tally.add(Omission.EMBEDDED_OBJECT)
            return None
        part = posixpath.join(resolve_member("", href), CONTENT_PART)
        inline = element.find(MATHML + "math")
        root = inline if inline is not None else self.container.optional_xml(part)
        if root is None:
            self.tally.add(Omission.EMBEDDED_OBJECT)
            return None
        math = root if root.tag == MATHML + "math" else root.find(f".//{MATHML}math")
        if math is not None:
            return _formula_text(math) or None
        chart = root.find(f".//{CHART}chart")
        if chart is not None:
            self.pending.extend(self._chart(chart))
            return None
        self.tally.add(Omission.EMBEDDED_OBJECT)
        return None

    def _chart(self, chart: Element) -> list[BlockDraft]:
        """An ODF chart object: a caption with its class, title and axis titles, and the
        data table it carries."""
        title = " ".join(" ".join(p.itertext()) for p in chart.findall(f"{CHART}title/{TEXT}p"))
        kind = (chart.get(CHART + "class") or "").removeprefix("chart:")
        axes = tuple(" ".join(" ".join(p.itertext()) for p in
                              axis.findall(f"{CHART}title/{TEXT}p")).strip()
                     for axis in chart.iter(CHART + "axis"))
        caption = (f"{kind.capitalize()} chart" if kind else "Chart") + (
            f": {' '.join(title.split())}" if title.strip() else "")
        if any(axes):
            caption += " (axes: " + "; ".join(a for a in axes if a) + ")"
        drafts = [BlockDraft(BlockKind.CAPTION, text=caption)]
        for table in chart.iter(TABLE + "table"):
            rows = self._table_rows(table)
            if rows:
                drafts.append(BlockDraft(BlockKind.TABLE, rows=rows))
        if len(drafts) == 1 and not title.strip():
            self.tally.add(Omission.CHART_WITHOUT_DATA)
            return []
        return drafts

    def _note(self, note: Element) -> str:
        citation = " ".join((note.findtext(TEXT + "note-citation") or "").split())
        body = note.find(TEXT + "note-body")
        label = citation or str(len(self.notes) + 1)
        if body is not None:
            text = " ".join(self._inline(p) for p in body.iter(TEXT + "p"))
            if text.strip():
                self.notes.append(BlockDraft(BlockKind.FOOTNOTE, text=f"[{label}] {text}",
                                             label=label))
        return f"[{label}]"

    # -- tables

    def _table(self, table: Element, depth: int) -> list[BlockDraft]:
        rows = self._table_rows(table, depth)
        return [BlockDraft(BlockKind.TABLE, rows=rows)] if rows else []

    def _table_rows(self, table: Element, depth: int = 0) -> tuple[tuple[str, ...], ...]:
        grid = self._grid(table, depth)
        return tuple(tuple(row) for row in grid if any(row))

    def _grid(self, table: Element, depth: int) -> list[list[str]]:
        """The table's rows: repeats written out (bounded), a spanned cell's value in
        every cell it covers (across and down)."""
        grid: list[list[str]] = []
        below: dict[int, tuple[str, int]] = {}  # column -> (value, rows still covered)
        for row in _table_rows_of(table):
            repeat = min(_int(row.get(TABLE + "number-rows-repeated")) or 1, _MAX_REPEAT)
            values: list[str] = []
            for cell in row:
                if cell.tag not in (TABLE + "table-cell", TABLE + "covered-table-cell"):
                    continue
                times = min(_int(cell.get(TABLE + "number-columns-repeated")) or 1, _MAX_REPEAT)
                for _ in range(times):
                    column = len(values)
                    if cell.tag == TABLE + "covered-table-cell":
                        held = below.get(column)
                        value = held[0] if held else (values[-1] if values else "")
                        values.append(self.budget.cell_text(value, "a table"))
                        continue
                    # Spent as a cell as it is written (repeats and spans included): a
                    # long value repeated a thousand times across and down is an
                    # amplification, refused as soon as the budget is passed.
                    text = self.budget.cell_text(self._cell_text(cell, depth), "a table")
                    across = min(_int(cell.get(TABLE + "number-columns-spanned")) or 1, 64)
                    down = min(_int(cell.get(TABLE + "number-rows-spanned")) or 1, _MAX_REPEAT)
                    for offset in range(across):
                        if down > 1:
                            below[column + offset] = (text, down - 1)
                    values.append(text)
            for column, (_, left) in list(below.items()):
                if left <= 0:
                    del below[column]
            if not any(values):
                repeat = min(repeat, 2)  # empty rows only separate tables
            characters = sum(len(v) for v in values)
            for copy in range(repeat):
                if copy:  # the first copy was spent cell by cell above
                    self.budget.spend_cells(len(values), "a table")
                    self.budget.spend_characters(characters, "a table")
                grid.append(list(values))
            for column, (value, left) in list(below.items()):
                below[column] = (value, left - 1)
        width = max((max((i + 1 for i, v in enumerate(r) if v), default=0) for r in grid),
                    default=0)
        return [r[:width] + [""] * (width - len(r[:width])) for r in grid]

    def _cell_text(self, cell: Element, depth: int) -> str:
        parts: list[str] = []
        for child in cell:
            if child.tag in (TEXT + "p", TEXT + "h"):
                parts.append(self._inline(child))
            elif child.tag == TEXT + "list":
                items: list[ListItem] = []
                self._list(child, 0, items, depth + 1)
                parts += [item.text for item in items]
            elif child.tag == TABLE + "table" and depth < _MAX_DEPTH:
                self.pending.extend(self._table(child, depth + 1))
        return " ".join(" ".join(parts).split())

    # -- spreadsheets and presentations

    def _spreadsheet(self) -> list[BlockDraft]:
        drafts: list[BlockDraft] = []
        for table in self.body.findall(TABLE + "table"):
            name = table.get(TABLE + "name") or f"Sheet {len(drafts) + 1}"
            grid = self._grid(table, 0)
            drafts += sheet_blocks(name, grid, limits=self.limits, separate_tables=True)
            drafts += self.pending
            self.pending.clear()
            shapes = table.find(TABLE + "shapes")
            for frame in shapes.findall(DRAW + "frame") if shapes is not None else []:
                drafts += self._frame(frame, 1)
        return drafts

    def _presentation(self) -> list[BlockDraft]:
        drafts: list[BlockDraft] = []
        for number, page in enumerate(self.body.findall(DRAW + "page"), 1):
            pages = (number,)
            title = None
            body: list[BlockDraft] = []
            for frame in page:
                role = frame.get(PRESENTATION + "class")
                if role == "title" and title is None:
                    title = " ".join(self._inline(p) for p in frame.iter(TEXT + "p")).strip()
                    continue
                if role in ("page-number", "date-time", "footer", "header"):
                    continue
                if frame.tag == PRESENTATION + "notes":
                    continue
                body += self._block(frame, 1)
            notes: list[BlockDraft] = []
            for holder in page.findall(PRESENTATION + "notes"):
                for frame in holder.findall(DRAW + "frame"):
                    if frame.get(PRESENTATION + "class") == "notes":
                        notes += self._frame(frame, 1)
            heading = title or page.get(DRAW + "name") or f"Slide {number}"
            drafts.append(BlockDraft(BlockKind.HEADING, text=heading, level=1, pages=pages))
            drafts += [attrs.evolve(d, pages=pages) for d in body]
            if notes:
                drafts.append(BlockDraft(BlockKind.HEADING, text="Speaker notes", level=2,
                                         pages=pages))
                drafts += [attrs.evolve(d, pages=pages) for d in notes]
        return drafts

    def _metadata(self) -> DocumentMetadata:
        root = self.container.optional_xml("meta.xml")
        meta = root.find(OFFICE + "meta") if root is not None else None
        if meta is None:
            return DocumentMetadata()

        def text(tag: str) -> str | None:
            return " ".join((meta.findtext(tag) or "").split()) or None

        creator = text(META + "initial-creator") or text(DC + "creator")
        published = text(META + "creation-date") or text(DC + "date")
        keywords = tuple(k for k in (" ".join((e.text or "").split())
                                     for e in meta.findall(META + "keyword")) if k)
        return DocumentMetadata(title=text(DC + "title"),
                                authors=(creator,) if creator else (),
                                published=published[:10] if published else None,
                                description=text(DC + "subject") or text(DC + "description"),
                                keywords=keywords, language=text(DC + "language"))


def _table_rows_of(table: Element) -> list[Element]:
    rows: list[Element] = []
    for child in table:
        if child.tag == TABLE + "table-row":
            rows.append(child)
        elif child.tag in (TABLE + "table-header-rows", TABLE + "table-rows",
                           TABLE + "table-row-group"):
            rows += _table_rows_of(child)
    return rows


def _formula_text(math: Element) -> str:
    """An ODF formula as text: its StarMath annotation when it has one (what the author
    typed), else the MathML's characters."""
    for annotation in math.iter(MATHML + "annotation"):
        if (annotation.get("encoding") or "").startswith("StarMath"):
            return " ".join((annotation.text or "").split())
    return " ".join(" ".join(t for t in math.itertext()).split())


def _paragraph_styles(content: Element, styles: Element | None) -> dict[str, str]:
    """Paragraph style names whose style, or a parent, is Title or Subtitle."""
    parents: dict[str, str] = {}
    for root in (content, styles):
        if root is None:
            continue
        for style in root.iter(STYLE + "style"):
            name = style.get(STYLE + "name") or ""
            parents[name] = style.get(STYLE + "parent-style-name") or ""
    roles: dict[str, str] = {}
    for name in parents:
        seen, current = 0, name
        while current and seen < _MAX_DEPTH:
            lowered = current.lower()
            if lowered in ("title", "subtitle"):
                roles[name] = lowered
                break
            current, seen = parents.get(current, ""), seen + 1
    return roles


def _list_styles(content: Element, styles: Element | None) -> dict[str, dict[int, bool]]:
    """For each list style, whether each level is numbered."""
    found: dict[str, dict[int, bool]] = {}
    for root in (content, styles):
        if root is None:
            continue
        for style in root.iter(TEXT + "list-style"):
            levels: dict[int, bool] = {}
            for level in style:
                number = _int(level.get(TEXT + "level")) or 1
                levels[number] = level.tag == TEXT + "list-level-style-number" and bool(
                    level.get(STYLE + "num-format"))
            found[style.get(STYLE + "name") or ""] = levels
    return found


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
