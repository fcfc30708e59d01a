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

from ...domain.document.document import BlockDraft, Document
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from ...domain.document.markdown_rendering import assemble_document
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.sheet_tables import DEFAULT_SHEET_LIMITS, SheetLimits, sheet_blocks
from .container_extractor import ContainerExtractor
from .container_reading import Container
from .core_properties import core_metadata
from .relationships import R, relationships

S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
MAIN_PART = "xl/workbook.xml"
_CELL_REF = re.compile(r"^([A-Z]{1,3})(\d+)$")
_BUILTIN_DATE_FORMATS = frozenset({14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47})
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_MAX_COLUMN = 16_384


@attrs.frozen
class _Workbook:
    shared: tuple[str, ...]
    date_styles: frozenset[int]
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
        book = _Workbook(_shared_strings(container), _date_styles(container),
                         datetime(1904, 1, 1) if date1904 else datetime(1899, 12, 30))
        drafts: list[BlockDraft] = []
        read_parts: set[str] = set()  # a sheet listed twice is read once
        sheets = workbook.find(S + "sheets")
        for sheet in sheets if sheets is not None else []:
            rel = rels.get(sheet.get(R + "id") or "")
            if rel is None or rel.external or not container.has(rel.target) \
                    or rel.target in read_parts:
                continue
            read_parts.add(rel.target)
            name = sheet.get("name") or rel.target.rsplit("/", 1)[-1]
            rows = _rows(container.xml(rel.target), book, container.budget, name)
            drafts += sheet_blocks(name, rows, limits=self.limits)
        if len(drafts) == sum(1 for d in drafts if d.kind.value == "heading"):
            raise SheafError(ErrorKind.EMPTY, "the workbook holds no cells")
        metadata = core_metadata(container)
        return assemble_document(drafts, metadata=metadata)


def _rows(sheet: Element, book: _Workbook, budget: ExtractionBudget, name: str
          ) -> list[list[str]]:
    """The sheet's cell values by row; each cell spent from `budget` as it is read (one
    shared string can stand behind millions of cells) and cut to the per-cell cap."""
    rows: list[list[str]] = []
    where = f"sheet {name!r}"
    data = sheet.find(S + "sheetData")
    for row in data.findall(S + "row") if data is not None else []:
        values: list[str] = []
        for cell in row.findall(S + "c"):
            column = _column(cell.get("r"), len(values))
            if column >= _MAX_COLUMN:
                continue
            values.extend([""] * (column - len(values)))
            values.append(budget.cell_text(_value(cell, book), where))
        rows.append(values)
    return rows


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
        return moment.date().isoformat() if moment.time() == datetime.min.time() \
            else moment.isoformat(sep=" ", timespec="seconds")
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


def _date_styles(container: Container) -> frozenset[int]:
    """Indexes of the cell formats that show numbers as dates."""
    root = container.optional_xml("xl/styles.xml")
    if root is None:
        return frozenset()
    custom_dates = set()
    formats = root.find(S + "numFmts")
    for fmt in formats if formats is not None else []:
        code = _QUOTED.sub("", fmt.get("formatCode") or "").lower()
        if any(c in code for c in "dy") or ("m" in code and "h" not in code and "0" not in code):
            custom_dates.add(int(fmt.get("numFmtId") or -1))
    cell_formats = root.find(S + "cellXfs")
    found = set()
    for index, xf in enumerate(cell_formats.findall(S + "xf") if cell_formats is not None else []):
        number_format = int(xf.get("numFmtId") or 0)
        if number_format in _BUILTIN_DATE_FORMATS or number_format in custom_dates:
            found.add(index)
    return frozenset(found)
