"""DrawingML chart parts (`c:chartSpace`, shared by PPTX, DOCX and XLSX) read into
`Chart` values: the values a chart caches for its series, its title and axis titles."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from ...domain.document.omissions import Omission, OmissionTally
from ...domain.office.figures import Chart, ChartSeries
from .container_reading import Container

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
CHARTEX_URI = "http://schemas.microsoft.com/office/drawing/2014/chartex"
_MAX_POINTS = 10_000
_KINDS = {"barChart": "bar", "bar3DChart": "bar", "lineChart": "line",
          "line3DChart": "line", "pieChart": "pie", "pie3DChart": "pie", "ofPieChart": "pie",
          "doughnutChart": "doughnut", "areaChart": "area", "area3DChart": "area",
          "scatterChart": "scatter", "bubbleChart": "bubble", "radarChart": "radar",
          "stockChart": "stock", "surfaceChart": "surface", "surface3DChart": "surface"}


def read_chart(container: Container, part: str, tally: OmissionTally) -> Chart | None:
    """The chart in `part`; None (counted as left out) when the part is missing or holds
    no chart sheaf can read."""
    if not container.has(part):
        tally.add(Omission.CHART_WITHOUT_DATA)
        return None
    root = container.xml(part)
    chart = root.find(C + "chart")
    plot = chart.find(C + "plotArea") if chart is not None else None
    if chart is None or plot is None:
        tally.add(Omission.CHART_WITHOUT_DATA)
        return None
    kinds: list[str] = []
    categories: list[str] = []
    series: list[ChartSeries] = []
    for group in plot:
        local = group.tag.removeprefix(C)
        if local not in _KINDS:
            continue
        if _KINDS[local] not in kinds:
            kinds.append(_KINDS[local])
        for ser in group.findall(C + "ser"):
            found = _points(ser.find(C + "cat")) or _points(ser.find(C + "xVal"))
            if len(found) > len(categories):
                categories = found
            values = _points(ser.find(C + "val")) or _points(ser.find(C + "yVal"))
            series.append(ChartSeries(_series_name(ser), tuple(values)))
    axes = tuple(t for t in (_title(axis.find(C + "title")) for axis in plot
                             if axis.tag in (C + "catAx", C + "dateAx", C + "valAx",
                                             C + "serAx")) if t)
    return Chart(" and ".join(kinds), _title(chart.find(C + "title")), axes,
                 tuple(categories), tuple(series))


def chart_reference(graphic_data: Element) -> str | None:
    """The relationship id a `a:graphicData` holding a chart points to."""
    reference = graphic_data.find(C + "chart")
    if reference is None:
        return None
    return reference.get("{http://schemas.openxmlformats.org/officeDocument/2006/"
                         "relationships}id")


def _title(title: Element | None) -> str | None:
    if title is None:
        return None
    rich = title.find(f"{C}tx/{C}rich")
    if rich is not None:
        lines = [" ".join("".join(t.text or "" for t in p.iter(A + "t")).split())
                 for p in rich.findall(A + "p")]
        text = " ".join(line for line in lines if line)
        return text or None
    cached = _points(title.find(C + "tx"))
    return " ".join(cached) or None


def _series_name(ser: Element) -> str:
    tx = ser.find(C + "tx")
    if tx is None:
        return ""
    direct = tx.findtext(C + "v")
    if direct:
        return " ".join(direct.split())
    return " ".join(" ".join(_points(tx)).split())


def _points(holder: Element | None) -> list[str]:
    """The cached points of a `cat`, `val`, `tx`, `xVal` or `yVal`, in index order."""
    if holder is None:
        return []
    cache = None
    for path in (f"{C}strRef/{C}strCache", f"{C}numRef/{C}numCache", f"{C}strLit",
                 f"{C}numLit", f"{C}multiLvlStrRef/{C}multiLvlStrCache"):
        cache = holder.find(path)
        if cache is not None:
            break
    if cache is None:
        return []
    if cache.tag == C + "multiLvlStrCache":
        level = cache.find(C + "lvl")  # the innermost level labels each point
        cache = level if level is not None else cache
    points: dict[int, str] = {}
    for point in cache.iter(C + "pt"):
        try:
            index = int(point.get("idx") or len(points))
        except ValueError:
            continue
        if 0 <= index < _MAX_POINTS:
            points[index] = _number(point.findtext(C + "v") or "")
    length = max(points, default=-1) + 1
    size = cache.find(C + "ptCount")
    if size is not None:
        declared = size.get("val") or ""
        if declared.isdigit():
            length = max(length, min(int(declared), _MAX_POINTS))
    return [points.get(i, "") for i in range(length)]


def _number(text: str) -> str:
    text = " ".join(text.split())
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{value:.15g}" if value == value else text  # NaN stays as written
