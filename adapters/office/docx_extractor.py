"""The DOCX extractor: WordprocessingML read with zipfile and a safe XML parser.

Headings come from outline levels (on the paragraph or its style chain) and from the
built-in "Heading N" and "Title" styles; list paragraphs from numbering properties;
tables, hyperlinks, footnotes and endnotes from their parts; metadata from the core
properties. Blocks are built directly (no HTML detour), so nothing a content-selection
heuristic might drop is at risk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
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
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.figures import chart_drafts, figure_drafts
from .chart_reading import chart_reference, read_chart
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .diagram_reading import DIAGRAM_URI, diagram_texts
from .embedded_packages import PackageReader, embedded_drafts
from .omml_latex import M, omml_latex
from .relationships import R, relationships

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
PIC = "{http://schemas.openxmlformats.org/drawingml/2006/picture}"
V = "{urn:schemas-microsoft-com:vml}"
OFFICE = "{urn:schemas-microsoft-com:office:office}"
W14 = "{http://schemas.microsoft.com/office/word/2010/wordml}"
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
    number: str = ""
    """The number Word prints before the paragraph ("3.", "2.1"), when it is numbered."""


class DocxExtractor(ContainerExtractor):
    """Extracts a Word document (Office Open XML) in a worker thread; `embedded` reads
    the packages embedded in it (by kind: `xlsx`, `pptx`), none when not given."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 embedded: Mapping[str, PackageReader] | None = None,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        super().__init__(limiter, extraction_limits=extraction_limits)
        self.embedded = dict(embedded or {})

    def read(self, container: Container, location: str) -> Document:
        return _DocxReading(container, location, self.embedded).document()


class _DocxReading:
    def __init__(self, container: Container, location: str,
                 embedded: Mapping[str, PackageReader] | None = None) -> None:
        if not container.has(MAIN_PART):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"a ZIP archive without {MAIN_PART}: not a DOCX document")
        self.container = container
        self.location = location
        self.rels = relationships(container, MAIN_PART)
        self.styles = self._styles()
        self.ordered_lists = self._ordered_lists()
        self.level_formats = self._level_formats()
        self.counters: dict[str, list[int]] = {}
        self.links: list[Link] = []
        self.note_numbers: dict[tuple[str, str], int] = {}
        self.tally = OmissionTally()
        self.embedded = embedded or {}
        self.embedded_notes: list[str] = []
        self.in_cell = False
        self.pending: list[BlockDraft] = []
        """Figures and charts met inside a paragraph, placed after it."""
        self.nesting = 0
        """How many tables and text boxes the reading is inside: capped at `_MAX_NESTING`,
        so boxes in tables in boxes cannot deepen the call stack without limit."""

    def document(self) -> Document:
        body = self.container.xml(MAIN_PART).find(W + "body")
        if body is None:
            raise SheafError(ErrorKind.CORRUPT, f"{MAIN_PART} has no body")
        paragraphs: list[_Paragraph | BlockDraft] = []
        self._walk(body, paragraphs)
        drafts = self._drafts(paragraphs)
        drafts += self._notes()
        self.pending.clear()  # figures inside notes are counted, not placed
        drafts = self.container.budget.take(drafts, "the document")
        metadata = core_metadata(self.container)
        if not drafts:
            raise SheafError(ErrorKind.EMPTY, "the document holds no text")
        if metadata.title is None:
            titled = next((p.text for p in paragraphs
                           if isinstance(p, _Paragraph) and p.is_title), None)
            first = titled or next((d.text for d in drafts if d.kind is BlockKind.HEADING), None)
            metadata = attrs.evolve(metadata, title=first)
        drafts = with_link_list(drafts, self.links, self.container.budget)
        return assemble_document(drafts, metadata=metadata, links=self.links,
                                 notes=[*self.embedded_notes, self.tally.note()])

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
                out.extend(self._paragraph_blocks(child))
            elif child.tag == W + "tbl":
                out.extend(self._table(child, self.nesting))
            elif child.tag in (W + "sdt", W + "sdtContent", W + "customXml", W + "ins",
                               MC + "AlternateContent", MC + "Choice"):
                stack.append(iter(child))

    def _paragraph_blocks(self, element: Element) -> list[_Paragraph | BlockDraft]:
        """The paragraph, then its display equations (an `m:oMathPara`, or equations
        standing alone in their paragraph) as formula blocks, then its figures."""
        paragraph = self._paragraph(element)
        display = [math for holder in element.findall(M + "oMathPara")
                   for math in holder.iter(M + "oMath")]
        alone = element.findall(M + "oMath")
        # Whether the paragraph has words besides its equations is read from its text
        # runs, not by reading it again: a second reading would place and count its
        # pictures, charts and links twice.
        if not display and alone and not _has_words(element):
            display, paragraph = alone, attrs.evolve(paragraph, text="")
        out: list[_Paragraph | BlockDraft] = [paragraph]
        for math in display:
            latex = omml_latex(math)
            if latex:
                out.append(BlockDraft(BlockKind.FORMULA, text=latex, language="latex"))
        out.extend(self.pending)
        self.pending.clear()
        return out

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
        text = _clean(self._text(element))
        number = self._count(numbering) if numbering is not None and text else ""
        if heading is not None and number:
            text = f"{number} {text}"  # "2.1 Methods": the number a reader cites
        return _Paragraph(text, heading, is_title, numbering, number)

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
            if tag == M + "oMath":
                latex = omml_latex(child)
                parts.append(f" ${latex}$ " if latex else "")
            elif tag == M + "oMathPara":
                if self.in_cell:  # a table cell holds its equations inline
                    latex = " ".join(omml_latex(m) for m in child.iter(M + "oMath"))
                    parts.append(f" ${latex.strip()}$ " if latex.strip() else "")
                # elsewhere display equations become formula blocks
            elif tag == W + "drawing":
                self._drawing(child)
                stack.append((iter(child), None, len(parts)))  # text boxes' text
            elif tag == W + "pict":
                self._vml_picture(child)
                stack.append((iter(child), None, len(parts)))
            elif tag == W + "txbxContent":
                if self.nesting >= _MAX_NESTING:
                    # Boxes in boxes past any real document's depth: their text is read
                    # in line, so nesting them cannot deepen the call stack (issue 30).
                    stack.append((iter(child), None, len(parts)))
                    continue
                # A text box's paragraphs are blocks of their own after the paragraph
                # that anchors the box, not words run into its line.
                inner: list[_Paragraph | BlockDraft] = []
                self.nesting += 1
                try:
                    self._walk(child, inner)
                finally:
                    self.nesting -= 1
                self.pending.extend(self._drafts(inner))
            elif tag == W + "object":
                self._embedded_object(child)
            elif tag == W + "sdt" and child.find(f"{W}sdtPr/{W14}checkbox") is not None:
                # A check box control: its state as text, not the font's box glyph.
                checked = child.find(f"{W}sdtPr/{W14}checkbox/{W14}checked")
                ticked = checked is not None and checked.get(W14 + "val") in ("1", "true")
                parts.append("[x]" if ticked else "[ ]")
            elif tag == W + "t":
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

    # -- pictures and charts

    def _drawing(self, drawing: Element) -> None:
        """A DrawingML object: a chart's data, a picture's description, or a count."""
        for frame in (*drawing.findall(WP + "inline"), *drawing.findall(WP + "anchor")):
            data = frame.find(f"{A}graphic/{A}graphicData")
            if data is None:
                continue
            described = frame.find(WP + "docPr")
            reference = chart_reference(data)
            if reference is not None:
                rel = self.rels.get(reference)
                chart = read_chart(self.container, rel.target, self.tally) \
                    if rel is not None and not rel.external else None
                if rel is None or rel.external:
                    self.tally.add(Omission.CHART_WITHOUT_DATA)
                if chart is not None:
                    self.pending.extend(chart_drafts(chart, self.tally))
                continue
            if data.get("uri") == DIAGRAM_URI:
                texts = diagram_texts(self.container, self.rels, data)
                if texts:
                    self.pending.append(BlockDraft(
                        BlockKind.LIST, items=tuple(ListItem(t) for t in texts)))
                else:
                    self.tally.add(Omission.DIAGRAM)
                continue
            pictures = list(data.iter(PIC + "pic"))
            for picture in pictures:
                own = picture.find(f"{PIC}nvPicPr/{PIC}cNvPr")
                alt = (own.get("descr") if own is not None else None) or (
                    described.get("descr") if described is not None and len(pictures) == 1
                    else None)
                title = (own.get("title") if own is not None else None) or (
                    described.get("title") if described is not None and len(pictures) == 1
                    else None)
                self.pending.extend(figure_drafts(alt, title, self.tally))

    def _embedded_object(self, holder: Element) -> None:
        """An OLE object: an embedded Office package read as a child document after
        the paragraph; any other object counted as left out."""
        ole = holder.find(OFFICE + "OLEObject")
        rel = self.rels.get(ole.get(R + "id") or "") if ole is not None else None
        if rel is None or rel.external:
            self.tally.add(Omission.EMBEDDED_OBJECT)
            return
        self.pending.extend(embedded_drafts(self.container, rel.target, self.embedded,
                                            self.tally, self.embedded_notes, level=1))

    def _vml_picture(self, pict: Element) -> None:
        """A legacy VML picture: its `alt` and its image's `o:title`."""
        for shape in pict.iter():
            if shape.tag not in (V + "shape", V + "rect", V + "image"):
                continue
            image = shape.find(V + "imagedata")
            if image is None:
                continue
            self.pending.extend(figure_drafts(shape.get("alt"), image.get(OFFICE + "title"),
                                              self.tally))

    def _link_target(self, element: Element) -> str | None:
        rel = self.rels.get(element.get(R + "id") or "")
        anchor = element.get(W + "anchor")
        if rel is not None and rel.external:
            return rel.target + (f"#{anchor}" if anchor else "")
        return f"#{anchor}" if anchor else None

    def _table(self, table: Element, depth: int) -> list[BlockDraft]:
        """The table, then the tables nested in its cells (each its own table, so a
        nested grid is not flattened into one cell), then their figures."""
        outer, self.nesting = self.nesting, depth + 1
        try:
            return self._table_blocks(table, depth)
        finally:
            self.nesting = outer

    def _table_blocks(self, table: Element, depth: int) -> list[BlockDraft]:
        nested: list[BlockDraft] = []
        rows: list[list[str]] = []
        for row in _rows_of(table):
            cells: list[str] = []
            for cell in _cells_of(row):
                properties = cell.find(W + "tcPr")
                span = min(_int(_value(properties, W + "gridSpan")) or 1, 64)
                merge = properties.find(W + "vMerge") if properties is not None else None
                column = len(cells)
                if merge is not None and merge.get(W + "val") in (None, "continue") \
                        and rows and column < len(rows[-1]):
                    text = rows[-1][column]  # a vertical merge repeats the value above
                else:
                    text = self._cell_text(cell, depth, nested)
                cells.extend([text] * span)  # a horizontal span repeats its value too
            rows.append(cells)
        kept = tuple(tuple(r) for r in rows if any(r))
        out = [BlockDraft(BlockKind.TABLE, rows=kept)] if kept else []
        out += nested
        out += self.pending
        self.pending.clear()
        return out

    def _cell_text(self, cell: Element, depth: int, nested: list[BlockDraft]) -> str:
        """The cell's paragraphs as one line (numbered ones with their numbers); the
        tables nested in it added to `nested`. Content controls around them are walked
        with a stack: they nest without limit (issue 30)."""
        parts: list[str] = []
        stack = [iter(cell)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
            elif child.tag == W + "p":
                outer, self.in_cell = self.in_cell, True
                text = _clean(self._text(child))
                self.in_cell = outer
                properties = child.find(W + "pPr")
                numbering = self._numbering(properties, _value(properties, W + "pStyle"))
                number = self._count(numbering) if numbering is not None and text else ""
                parts.append(f"{number} {text}" if number else text)  # a numbered list
            elif child.tag == W + "tbl":
                if depth < _MAX_NESTING:
                    nested.extend(self._table(child, depth + 1))
            elif child.tag in (W + "sdt", W + "sdtContent", W + "customXml"):
                stack.append(iter(child))
        return _clean(" ".join(parts))

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
                ordered = (num_id, depth) in self.ordered_lists
                # The printed number, so a list that resumes its numbering says "4.".
                items.append(ListItem(paragraph.text, depth=depth, ordered=ordered,
                                      marker=paragraph.number if ordered and paragraph.number
                                      else None))
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
                if (kind, note.get(W + "id") or "") not in self.note_numbers:
                    continue  # a note nothing in the body refers to
                # Its outer paragraphs, then the paragraphs of text boxes in them (which
                # reading a paragraph sets aside): each paragraph read once, however deep.
                pieces = [_clean(self._text(p)) for p in _outer_paragraphs(note)]
                pieces += [d.text for d in self.pending
                           if d.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING)]
                self.pending.clear()  # figures inside notes are counted, not placed
                text = " ".join(pieces)
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

    def _count(self, numbering: tuple[str, int]) -> str:
        """Advance the numbering `numbering` belongs to and give the number Word prints
        for it ("2.1."), or "" for bullets."""
        num_id, depth = numbering
        abstract, levels = self.level_formats.get(num_id, ("", {}))
        if not levels:
            return ""
        counters = self.counters.setdefault(abstract, [0] * 9)
        for level in range(depth):  # a level first met below others starts them at 1
            counters[level] = counters[level] or levels.get(level, ("", "", 1))[2]
        start = levels.get(depth, ("", "", 1))[2]
        counters[depth] = counters[depth] + 1 if counters[depth] else start
        for deeper in range(depth + 1, 9):
            counters[deeper] = 0
        fmt, pattern, _ = levels.get(depth, ("", "", 1))
        if fmt in ("bullet", "none", "") or not pattern:
            return ""

        def number(match: re.Match[str]) -> str:
            level = int(match.group(1)) - 1
            level_fmt = levels.get(level, ("decimal", "", 1))[0]
            return _formatted(counters[level] if 0 <= level < 9 else 0, level_fmt)

        return re.sub(r"%([1-9])", number, pattern).strip()

    def _level_formats(self) -> dict[str, tuple[str, dict[int, tuple[str, str, int]]]]:
        """For each numId: its abstract numbering's id, and per level the number format,
        the text pattern ("%1.%2.") and the start value."""
        root = self.container.optional_xml("word/numbering.xml")
        if root is None:
            return {}
        abstracts: dict[str, dict[int, tuple[str, str, int]]] = {}
        for abstract in root.findall(W + "abstractNum"):
            levels: dict[int, tuple[str, str, int]] = {}
            for level in abstract.findall(W + "lvl"):
                index = min(max(_int(level.get(W + "ilvl")) or 0, 0), 8)
                levels[index] = (_value(level, W + "numFmt") or "decimal",
                                 _value(level, W + "lvlText") or "",
                                 min(max(_int(_value(level, W + "start")) or 1, 0), 10**6))
            abstracts[abstract.get(W + "abstractNumId") or ""] = levels
        found = {}
        for num in root.findall(W + "num"):
            abstract_id = _value(num, W + "abstractNumId") or ""
            found[num.get(W + "numId") or ""] = (abstract_id, abstracts.get(abstract_id, {}))
        return found

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


def _formatted(value: int, fmt: str) -> str:
    """A list counter as Word prints it in the level's number format."""
    if fmt in ("lowerLetter", "upperLetter") and value > 0:
        letters = ""
        while value > 0:
            value, rest = divmod(value - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters if fmt == "lowerLetter" else letters.upper()
    if fmt in ("lowerRoman", "upperRoman") and 0 < value < 4000:
        numerals = ""
        for amount, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"),
                                (100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"),
                                (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
            while value >= amount:
                numerals, value = numerals + numeral, value - amount
        return numerals if fmt == "lowerRoman" else numerals.upper()
    if fmt == "decimalZero":
        return f"{value:02d}"
    return str(value)


def _rows_of(table: Element) -> list[Element]:
    """The table's rows, also those wrapped in content controls or custom XML."""
    return _children_through_wrappers(table, W + "tr")


def _cells_of(row: Element) -> list[Element]:
    """The row's cells, also those wrapped in content controls or custom XML."""
    return _children_through_wrappers(row, W + "tc")


def _children_through_wrappers(parent: Element, tag: str) -> list[Element]:
    """`parent`'s children named `tag`, in order, looking through content controls and
    custom XML; walked with a stack, since those wrappers nest without limit."""
    found: list[Element] = []
    stack = [iter(parent)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.tag == tag:
            found.append(child)
        elif child.tag in (W + "sdt", W + "sdtContent", W + "customXml"):
            stack.append(iter(child))
    return found


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


def _has_words(paragraph: Element) -> bool:
    """Whether the paragraph's own runs hold text: equations and text boxes (which are
    blocks of their own) aside."""
    stack = [paragraph]
    while stack:
        element = stack.pop()
        for child in element:
            if child.tag == W + "t" and (child.text or "").strip():
                return True
            if child.tag not in (M + "oMath", W + "txbxContent"):
                stack.append(child)
    return False


def _clean(text: str) -> str:
    return " ".join(text.split())

