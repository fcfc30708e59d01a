"""Workbooks as their sheets show them: several tables on one sheet found apart, merged
cells repeating their value, charts as their data and comments with their authors."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
from sheaf.domain.document.document import BlockKind
from sheaf.domain.office.sheet_tables import table_regions
from tests.property_examples import examples


def _workbook() -> bytes:
    from openpyxl import Workbook
    from openpyxl.chart import BarChart, Reference
    from openpyxl.comments import Comment

    book = Workbook()
    sheet = book.active
    sheet.title = "Harbour"
    sheet.append(["Ship", "Tons"])
    sheet.append(["Ariel", 120])
    sheet.append(["Brig", 80])
    sheet["E1"], sheet["F1"] = "Port", "Calls"
    sheet["E2"], sheet["F2"] = "Leith", 4
    sheet["A6"] = "Season summary"
    sheet.merge_cells("A6:C6")
    sheet["A7"], sheet["B7"], sheet["C7"] = "Spring", "Summer", "Autumn"
    sheet["A1"].comment = Comment("Names as registered", "Clerk Hale")
    chart = BarChart()
    chart.title = "Tonnage"
    chart.x_axis.title = "Ship"
    chart.y_axis.title = "Tons"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=3))
    sheet.add_chart(chart, "H2")
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_a_sheet_keeps_its_tables_apart_merged_values_charts_and_comments() -> None:
    document = XlsxExtractor().extract_sync(_workbook(), "harbour.xlsx")
    tables = [b.draft.rows for b in document.blocks if b.kind is BlockKind.TABLE]
    assert tables[0] == (("Ship", "Tons"), ("Ariel", "120"), ("Brig", "80"))
    assert tables[1] == (("Port", "Calls"), ("Leith", "4"))
    assert tables[2] == (("Season summary",) * 3, ("Spring", "Summer", "Autumn"))
    # openpyxl caches no values in the chart it writes: the series name and the
    # references are there, the points are not (Excel fills them when it saves).
    caption = next(b.draft.text for b in document.blocks if b.kind is BlockKind.CAPTION)
    assert caption == "Bar chart: Tonnage (axes: Ship; Tons)"
    assert "[A1, Clerk Hale]: Names as registered" in document.text
    assert document.headings()[0].draft.text == "Harbour"
    assert document.notes == ("left out: nothing",)


@st.composite
def _sheets(draw: st.DrawFn) -> tuple[list[list[str]], list[tuple[int, int, int, int]]]:
    """Rectangles of filled cells laid out in a grid with blank rows and columns between."""
    heights = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    widths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    gap = draw(st.integers(1, 3))
    rows: list[list[str]] = []
    boxes = []
    top = draw(st.integers(0, 2))
    total_width = sum(widths) + gap * len(widths) + 2
    rows.extend([[""] * total_width for _ in range(top)])
    for b, height in enumerate(heights):
        band = [[""] * total_width for _ in range(height)]
        left = 1
        for k, width in enumerate(widths):
            for r in range(height):
                for c in range(width):
                    band[r][left + c] = f"v{b}{k}{r}{c}"
            boxes.append((len(rows), left, height, width))
            left += width + gap
        rows.extend(band)
        rows.extend([[""] * total_width for _ in range(gap)])
    return rows, boxes


@settings(max_examples=examples(60), deadline=None)
@given(_sheets())
def test_blank_rows_and_columns_separate_tables(
        sheet: tuple[list[list[str]], list[tuple[int, int, int, int]]]) -> None:
    rows, boxes = sheet
    regions = table_regions(rows)
    assert len(regions) == len(boxes)
    for region, (top, left, height, width) in zip(regions, boxes, strict=True):
        assert region == [tuple(rows[top + r][left:left + width]) for r in range(height)]


def test_dates_show_the_time_of_day_when_their_format_does() -> None:
    from datetime import datetime

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Sold", "Due"])
    sheet.append([datetime(2024, 1, 1), datetime(2024, 2, 1)])
    sheet["A2"].number_format = "yyyy\\-mm\\-dd\\ h:mm:ss"
    sheet["B2"].number_format = "yyyy-mm-dd"
    buffer = io.BytesIO()
    book.save(buffer)
    document = XlsxExtractor().extract_sync(buffer.getvalue(), "sales.xlsx")
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.draft.rows[1] == ("2024-01-01 00:00:00", "2024-02-01")
