"""The XLSX extractor: SpreadsheetML read with zipfile and a safe XML parser.

Each sheet becomes a section of Markdown tables (`sheet_tables`): cell values as the
file stores them (shared and inline strings, numbers, booleans, cached formula
results), with date-formatted numbers shown as ISO dates.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from xml.etree.ElementTree import Element

import anyio
import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.figures import chart_drafts, figure_drafts
from ...domain.office.sheet_tables import DEFAULT_SHEET_LIMITS, SheetLimits, sheet_blocks
from .chart_reading import chart_reference, read_chart
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .relationships import R, relationships

S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
XDR = "{http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
TC = "{http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments}"
MAIN_PART = "xl/workbook.xml"
_CELL_REF = re.compile(r"^([A-Z]{1,3})(\d+)$")
_MAX_MERGED_CELLS = 1_000_000
_MAX_MERGED_ROWS = 10_000
_BUILTIN_DATE_FORMATS = frozenset({14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47})
_BUILTIN_TIME_FORMATS = frozenset({18, 19, 20, 21, 22, 45, 46, 47})
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_MAX_COLUMN = 16_384


@attrs.frozen
class _Workbook:
    shared: tuple[str, ...]
    date_styles: frozenset[int]
    time_styles: frozenset[int]
    """The date formats that show the time of day too ("yyyy-mm-dd h:mm:ss")."""
    epoch: datetime


class XlsxExtractor(ContainerExtractor):
    """Extracts an Excel workbook (Office Open XML) in a worker thread."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 limits: SheetLimits = DEFAULT_SHEET_LIMITS,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        # The sheet limits' cell caps are the budget's: one setting, not two.
        super().__init__(limiter, extraction_limits=attrs.evolve(
            extraction_limits, max_cells=limits.max_cells,
            max_cell_characters=limits.max_cell_characters))
        self.limits = limits

    def read(self, container: Container, location: str) -> Document:
        return self._workbook(container)

    def _workbook(self, container: Container) -> Document:
        if not container.has(MAIN_PART):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"a ZIP archive without {MAIN_PART}: not an XLSX workbook")
        workbook = container.xml(MAIN_PART)
        rels = relationships(container, MAIN_PART)
        properties = workbook.find(S + "workbookPr")
        date1904 = properties is not None and properties.get("date1904") in ("1", "true")
        book = _Workbook(_shared_strings(container), *_date_styles(container),
                         datetime(1904, 1, 1) if date1904 else datetime(1899, 12, 30))
        drafts: list[BlockDraft] = []
        read_parts: set[str] = set()  # a sheet listed twice is read once
        tally = OmissionTally()
        budget = container.budget
        sheets = workbook.find(S + "sheets")
        for sheet in sheets if sheets is not None else []:
            rel = rels.get(sheet.get(R + "id") or "")
            if rel is None or rel.external or not container.has(rel.target) \
                    or rel.target in read_parts:
                continue
            read_parts.add(rel.target)
            name = sheet.get("name") or rel.target.rsplit("/", 1)[-1]
            where = f"sheet {name!r}"
            root = container.xml(rel.target)
            if rel.kind == "chartsheet":
                drafts.append(BlockDraft(BlockKind.HEADING, text=name, level=1))
                drafts += budget.take(_drawings(container, rel.target, root, tally), where)
                continue
            rows, positions = _rows(root, book, budget, name)
            _spread_merged_cells(root, rows, positions, budget, where)
            drafts += sheet_blocks(name, rows, limits=self.limits, separate_tables=True)
            # Charts and comments are counted as they are taken; the cells above were
            # counted one by one as they were read.
            drafts += budget.take(_drawings(container, rel.target, root, tally), where)
            drafts += budget.take(_comments(container, rel.target, tally), where)
        if len(drafts) == sum(1 for d in drafts if d.kind is BlockKind.HEADING):
            raise SheafError(ErrorKind.EMPTY, "the workbook holds no cells")
        metadata = core_metadata(container)
        return assemble_document(drafts, metadata=metadata, notes=[tally.note()])


def _spread_merged_cells(sheet: Element, rows: list[list[str]], positions: dict[int, int],
                         budget: ExtractionBudget, where: str) -> None:
    """A merged range's value in every cell of the range (Excel keeps it in the first
    only), so a row of a table read alone still says what it belongs to. The copies are
    spent from the document's budget as characters (one long value merged over a million
    cells is an amplification) and stop, as Excel's own cap, past the cells left in it."""
    merges = sheet.find(S + "mergeCells")
    spread = 0
    cells_left = max(budget.limits.max_cells - budget.cells, 0)
    for merge in merges.findall(S + "mergeCell") if merges is not None else []:
        first, _, last = (merge.get("ref") or "").partition(":")
        top, left = _reference(first)
        bottom, right = _reference(last or first)
        first_row = positions.get(top)
        if first_row is None or bottom < top or right < left or left >= len(rows[first_row]) \
                or right >= _MAX_COLUMN:
            continue
        value = rows[first_row][left]
        covered = [positions[r] for r in range(top, min(bottom, top + _MAX_MERGED_ROWS) + 1)
                   if r in positions]
        spread += len(covered) * (right - left + 1)
        if not value or spread > min(cells_left, _MAX_MERGED_CELLS):
            continue
        budget.spend_characters(len(value) * len(covered) * (right - left + 1), where)
        for index in covered:
            row = rows[index]
            row.extend([""] * (right + 1 - len(row)))
            for c in range(left, right + 1):
                row[c] = value


def _reference(reference: str) -> tuple[int, int]:
    """(row, column), 0-based, of an `A1` reference; (-1, -1) when it is not one."""
    match = _CELL_REF.match(reference.replace("$", ""))
    if not match:
        return -1, -1
    return int(match.group(2)) - 1, _column(reference.replace("$", ""), 0)


def _drawings(container: Container, part: str, root: Element, tally: OmissionTally
              ) -> list[BlockDraft]:
    """The charts (their data) and pictures (their descriptions) of a sheet's drawing."""
    drafts: list[BlockDraft] = []
    part_rels = relationships(container, part)
    for holder in root.iter(S + "drawing"):
        rel = part_rels.get(holder.get(R + "id") or "")
        if rel is None or rel.external or not container.has(rel.target):
            continue
        drawing_rels = relationships(container, rel.target)
        for element in container.xml(rel.target).iter():
            if element.tag == XDR + "graphicFrame":
                data = element.find(f"{A}graphic/{A}graphicData")
                reference = chart_reference(data) if data is not None else None
                if reference is None:
                    tally.add(Omission.UNSUPPORTED_PART)
                    continue
                chart_rel = drawing_rels.get(reference)
                if chart_rel is None or chart_rel.external:
                    tally.add(Omission.CHART_WITHOUT_DATA)
                    continue
                chart = read_chart(container, chart_rel.target, tally)
                if chart is not None:
                    drafts += chart_drafts(chart, tally)
            elif element.tag == XDR + "pic":
                described = element.find(f"{XDR}nvPicPr/{XDR}cNvPr")
                drafts += figure_drafts(
                    described.get("descr") if described is not None else None,
                    described.get("title") if described is not None else None, tally)
    return drafts


def _comments(container: Container, part: str, tally: OmissionTally) -> list[BlockDraft]:
    """The sheet's comments, each "[cell, author, when]: text" (threaded comments with
    their replies when the sheet has them, else the legacy notes)."""
    part_rels = relationships(container, part)
    found: list[str] = []
    threaded = [r for r in part_rels.values() if r.kind == "threadedComment"
                and not r.external and container.has(r.target)]
    if threaded:
        people = _people(container)
        for rel in threaded:
            for comment in container.xml(rel.target).iter(TC + "threadedComment"):
                text = " ".join((comment.findtext(TC + "text") or "").split())
                who = [comment.get("ref") or "", people.get(comment.get("personId") or "", ""),
                       comment.get("dT") or ""]
                if text:
                    found.append(f"[{', '.join(w for w in who if w)}]: {text}")
    for rel in part_rels.values():
        if rel.kind != "comments" or rel.external or not container.has(rel.target):
            continue
        root = container.xml(rel.target)
        listed = root.find(S + "authors")
        authors = [" ".join((a.text or "").split()) for a in
                   (listed.findall(S + "author") if listed is not None else [])]
        comment_list = root.find(S + "commentList")
        for comment in comment_list.findall(S + "comment") if comment_list is not None else []:
            index = int(comment.get("authorId") or 0) if (comment.get("authorId") or "0"
                                                          ).isdigit() else 0
            author = authors[index] if index < len(authors) else ""
            if author.startswith("tc=") and threaded:
                continue  # the legacy copy of a threaded comment read above
            text_element = comment.find(S + "text")
            text = " ".join("".join(t.text or "" for t in text_element.iter(S + "t")).split()) \
                if text_element is not None else ""
            if text:
                who = [comment.get("ref") or "", "" if author.startswith("tc=") else author]
                found.append(f"[{', '.join(w for w in who if w)}]: {text}")
    if not found:
        return []
    return [BlockDraft(BlockKind.HEADING, text="Comments", level=2),
            *(BlockDraft(BlockKind.PARAGRAPH, text=line) for line in found)]


def _people(container: Container) -> dict[str, str]:
    root = container.optional_xml("xl/persons/person.xml")
    return {p.get("id") or "": p.get("displayName") or "" for p in
            (root.iter(TC + "person") if root is not None else [])}


def _rows(sheet: Element, book: _Workbook, budget: ExtractionBudget, name: str
          ) -> tuple[list[list[str]], dict[int, int]]:
    """The sheet's rows of values, and where each sheet row (0-based) is among them; each
    cell spent from `budget` as it is read (one shared string can stand behind millions
    of cells) and cut to the per-cell cap."""
    rows: list[list[str]] = []
    positions: dict[int, int] = {}
    last = -1
    where = f"sheet {name!r}"
    data = sheet.find(S + "sheetData")
    for row in data.findall(S + "row") if data is not None else []:
        number = row.get("r") or ""
        sheet_row = int(number) - 1 if number.isdigit() else last + 1
        if sheet_row > last + 1:
            # Rows the file leaves out are blank on the sheet; they keep tables apart.
            # A long run of them stands as two, so a row numbered 1048576 costs nothing.
            rows.extend([] for _ in range(min(sheet_row - last - 1, 2)))
        last = max(sheet_row, last + 1)
        positions[last] = len(rows)
        values: list[str] = []
        for cell in row.findall(S + "c"):
            column = _column(cell.get("r"), len(values))
            if column >= _MAX_COLUMN:
                continue
            values.extend([""] * (column - len(values)))
            values.append(budget.cell_text(_value(cell, book), where))
        rows.append(values)
    return rows, positions


def _column(reference: str | None, fallback: int) -> int:
    match = _CELL_REF.match(reference or "")
    if not match:
        return fallback
    index = 0
    for letter in match.group(1):
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def _value(cell: Element, book: _Workbook) -> str:
    kind = cell.get("t", "n")
    if kind == "inlineStr":
        inline = cell.find(S + "is")
        return "".join(t.text or "" for t in inline.iter(S + "t")) if inline is not None else ""
    raw = cell.findtext(S + "v")
    if raw is None:
        return ""
    if kind == "s":
        try:
            return book.shared[int(raw)]
        except (ValueError, IndexError):
            return ""
    if kind == "b":
        return "TRUE" if raw.strip() == "1" else "FALSE"
    if kind in ("str", "e"):
        return raw
    try:
        number = float(raw)
    except ValueError:
        return raw
    style = int(cell.get("s") or 0)
    if style in book.date_styles and 0 <= number < 2_958_466:
        moment = book.epoch + timedelta(days=number)
        if moment.time() == datetime.min.time() and style not in book.time_styles:
            return moment.date().isoformat()
        return moment.isoformat(sep=" ", timespec="seconds")
    return f"{number:.15g}"


def _shared_strings(container: Container) -> tuple[str, ...]:
    root = container.optional_xml("xl/sharedStrings.xml")
    if root is None:
        return ()
    # Phonetic runs (rPh) are reading aids, not the cell's text.
    return tuple("".join(t.text or "" for t in _text_parts(item))
                 for item in root.findall(S + "si"))


def _text_parts(item: Element) -> list[Element]:
    direct = item.find(S + "t")
    if direct is not None:
        return [direct]
    return [t for run in item.findall(S + "r") for t in run.findall(S + "t")]


def _date_styles(container: Container) -> tuple[frozenset[int], frozenset[int]]:
    """Indexes of the cell formats that show numbers as dates, and of those among them
    that show the time of day too."""
    root = container.optional_xml("xl/styles.xml")
    if root is None:
        return frozenset(), frozenset()
    custom_dates = set()
    custom_times = set()
    formats = root.find(S + "numFmts")
    for fmt in formats if formats is not None else []:
        code = _QUOTED.sub("", fmt.get("formatCode") or "").lower()
        if any(c in code for c in "dy") or ("m" in code and "h" not in code and "0" not in code):
            custom_dates.add(int(fmt.get("numFmtId") or -1))
            if "h" in code or "s" in code:
                custom_times.add(int(fmt.get("numFmtId") or -1))
    cell_formats = root.find(S + "cellXfs")
    dates, times = set(), set()
    for index, xf in enumerate(cell_formats.findall(S + "xf") if cell_formats is not None else []):
        number_format = int(xf.get("numFmtId") or 0)
        if number_format in _BUILTIN_DATE_FORMATS or number_format in custom_dates:
            dates.add(index)
        if number_format in _BUILTIN_TIME_FORMATS or number_format in custom_times:
            times.add(index)
    return frozenset(dates), frozenset(times)
