"""Spreadsheets and delimited text as sections of Markdown tables.

Each sheet (or CSV file) is a section headed by its name; a sheet longer than a table
should be is split into row ranges, each its own sub-section repeating the header row,
so a chunk or a quote never holds cells without the column names that explain them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

import attrs

from ..document.document import BlockDraft, BlockKind, Document
from ..document.markdown_rendering import assemble_document
from ..document.metadata import DocumentMetadata
from ..errors import ErrorKind, SheafError


@attrs.frozen
class SheetLimits:
    """How big a table gets before it is split, and past which a sheet is refused."""

    rows_per_table: int = 200
    max_cells: int = 2_000_000
    max_cell_characters: int = 32_767
    """Excel's own cap on one cell."""


DEFAULT_SHEET_LIMITS = SheetLimits()
_MAX_REGIONS = 200
_MAX_REGION_CELLS = 250_000
"""Past this many filled cells a sheet is read as one grid: the search for separate
tables holds every cell in a set, and sheets that large are data dumps."""
"""Past this many groups of cells a sheet is scattered values, not tables, and stays
one grid (merging overlapping groups is quadratic in their number)."""


def sheet_blocks(name: str, rows: Sequence[Sequence[str]], *, level: int = 1,
                 limits: SheetLimits = DEFAULT_SHEET_LIMITS,
                 separate_tables: bool = False) -> list[BlockDraft]:
    """A heading for the sheet and its non-empty rows as tables of at most
    `limits.rows_per_table` body rows, each repeating the first (header) row.

    With `separate_tables`, blocks of cells that empty rows and columns set apart on the
    sheet are tables of their own (top to bottom, then left to right), as a reader of
    the sheet sees them, not one grid padded with empty cells."""
    check_size(name, rows, limits)
    drafts = [BlockDraft(BlockKind.HEADING, text=name, level=level)]
    regions = table_regions(rows) if separate_tables else [trimmed_rows(rows)]
    for table in regions:
        if table:
            drafts += _table_blocks(name, table, level, limits)
    return drafts


def _table_blocks(name: str, table: list[tuple[str, ...]], level: int,
                  limits: SheetLimits) -> list[BlockDraft]:
    drafts: list[BlockDraft] = []
    header, body = table[0], table[1:]
    if len(body) <= limits.rows_per_table:
        drafts.append(BlockDraft(BlockKind.TABLE, rows=tuple(table)))
        return drafts
    for start in range(0, len(body), limits.rows_per_table):
        part = body[start:start + limits.rows_per_table]
        # Row numbers as the sheet counts them: the header is row 1.
        first, last = start + 2, start + 1 + len(part)
        drafts.append(BlockDraft(BlockKind.HEADING, text=f"{name}, rows {first}-{last}",
                                 level=min(level + 1, 6)))
        drafts.append(BlockDraft(BlockKind.TABLE, rows=(header, *part)))
    return drafts


def table_regions(rows: Sequence[Sequence[str]]) -> list[list[tuple[str, ...]]]:
    """The sheet's separate tables: groups of non-empty cells that touch (also
    diagonally), a group's bounding box widened to take in any group it overlaps, each
    cut out of the sheet as trimmed rows, in reading order."""
    filled = sum(1 for row in rows for value in row if value.strip())
    if filled > _MAX_REGION_CELLS:
        return [trimmed_rows(rows)]  # a data dump, one table: not worth the search
    cells = {(r, c) for r, row in enumerate(rows) for c, value in enumerate(row)
             if value.strip()}
    boxes: list[list[int]] = []  # top, left, bottom, right (inclusive)
    seen: set[tuple[int, int]] = set()
    for start in sorted(cells):
        if start in seen:
            continue
        seen.add(start)
        stack, box = [start], [start[0], start[1], start[0], start[1]]
        while stack:
            r, c = stack.pop()
            box = [min(box[0], r), min(box[1], c), max(box[2], r), max(box[3], c)]
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    near = (r + dr, c + dc)
                    if near in cells and near not in seen:
                        seen.add(near)
                        stack.append(near)
        boxes.append(box)
    if len(boxes) > _MAX_REGIONS:
        return [trimmed_rows(rows)]  # scattered cells, not tables: one grid
    merged = True
    while merged:  # a region inside another's bounding box belongs to it
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    regions = []
    for top, left, bottom, right in sorted(boxes, key=lambda b: (b[0], b[1])):
        cut = [tuple(row[left:right + 1]) for row in rows[top:bottom + 1]]
        regions.append(trimmed_rows(cut))
    return regions


def trimmed_rows(rows: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    """Rows without empty rows and without the empty columns trailing every row."""
    cleaned = [tuple(cell.strip() for cell in row) for row in rows]
    cleaned = [row for row in cleaned if any(row)]
    width = max((max((i + 1 for i, c in enumerate(row) if c), default=0) for row in cleaned),
                default=0)
    return [row[:width] + ("",) * (width - len(row)) for row in cleaned]


def check_size(name: str, rows: Sequence[Sequence[str]], limits: SheetLimits) -> None:
    cells = sum(len(row) for row in rows)
    if cells > limits.max_cells:
        raise SheafError(ErrorKind.TOO_LARGE,
                         f"sheet {name!r} has {cells} cells, over the {limits.max_cells} "
                         "cell limit")


def delimited_document(text: str, name: str, *, delimiter: str | None = None,
                       limits: SheetLimits = DEFAULT_SHEET_LIMITS) -> Document:
    """A CSV or TSV file as one section of tables; the delimiter is sniffed when not given."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise SheafError(ErrorKind.EMPTY, "the file holds no rows")
    chosen = delimiter or sniff_delimiter(text)
    csv.field_size_limit(limits.max_cell_characters + 1)
    rows: list[list[str]] = []
    cells = 0
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=chosen):
            cells += len(row)
            if cells > limits.max_cells:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"{name} has over {limits.max_cells} cells, the limit")
            rows.append(row)
    except csv.Error as exc:
        raise SheafError(ErrorKind.CORRUPT, f"{name} is not valid delimited text: {exc}") from None
    drafts = sheet_blocks(name, rows, limits=limits)
    if len(drafts) < 2:
        raise SheafError(ErrorKind.EMPTY, "the file holds no rows")
    # The title is the name without its extension, so the file's own section (headed by
    # the full name) is not taken for the title heading.
    title = name.rsplit(".", 1)[0] if "." in name.strip(".") else name
    return assemble_document(drafts, metadata=DocumentMetadata(title=title))


def sniff_delimiter(text: str) -> str:
    """The delimiter that splits the first lines into the same number of fields."""
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
