"""Images and charts as blocks: what a reader may quote of a picture is its alt text,
title or caption; of a chart, its title, axis labels and the data of its series."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..document.document import BlockDraft, BlockKind
from ..document.omissions import Omission, OmissionTally


def figure_drafts(alt_text: str | None, title: str | None, tally: OmissionTally, *,
                  pages: tuple[int, ...] = ()) -> list[BlockDraft]:
    """A figure block ("Figure: ...") from an image's description and title; none, and
    one more image counted as left out, when it has neither."""
    parts: list[str] = []
    for value in (title, alt_text):
        cleaned = " ".join((value or "").split())
        if cleaned and cleaned.lower() not in (p.lower() for p in parts) \
                and not _is_placeholder(cleaned):
            parts.append(cleaned)
    if not parts:
        tally.add(Omission.IMAGE_WITHOUT_TEXT)
        return []
    return [BlockDraft(BlockKind.CAPTION, text="Figure: " + " - ".join(parts), pages=pages)]


def _is_placeholder(text: str) -> bool:
    # Office writes file names and "Picture 3" as names when the author gave none.
    lowered = text.lower()
    if lowered.rsplit(".", 1)[-1] in ("png", "jpg", "jpeg", "gif", "emf", "wmf", "tif",
                                       "tiff", "bmp", "svg"):
        return True
    words = lowered.split()
    return len(words) == 2 and words[0] in ("picture", "image", "graphic", "grafik",
                                             "imagen", "bild") and words[1].isdigit()


@attrs.frozen
class ChartSeries:
    """One series: its name and one value per category (empty where it has none)."""

    name: str
    values: tuple[str, ...]


@attrs.frozen
class Chart:
    """A chart's data as its part caches it."""

    kind: str
    """`bar`, `line`, `pie`, ... (several for a combined chart: `bar and line`)."""
    title: str | None
    axis_titles: tuple[str, ...]
    categories: tuple[str, ...]
    series: tuple[ChartSeries, ...]


def chart_drafts(chart: Chart, tally: OmissionTally, *, pages: tuple[int, ...] = ()
                 ) -> list[BlockDraft]:
    """The chart as a caption naming its kind, title and axes, and a table with a row per
    category and a column per series (docling's layout, so tables compare)."""
    label = f"{chart.kind.capitalize()} chart" if chart.kind else "Chart"
    caption = label + (f": {chart.title}" if chart.title else "")
    if chart.axis_titles:
        caption += " (axes: " + "; ".join(chart.axis_titles) + ")"
    drafts = [BlockDraft(BlockKind.CAPTION, text=caption, pages=pages)]
    rows = chart_rows(chart.categories, chart.series, chart.axis_titles)
    if rows:
        drafts.append(BlockDraft(BlockKind.TABLE, rows=rows, pages=pages))
    elif not chart.title and not chart.axis_titles:
        tally.add(Omission.CHART_WITHOUT_DATA)
        return []
    return drafts


def chart_rows(categories: Sequence[str], series: Sequence[ChartSeries],
               axis_titles: Sequence[str] = ()) -> tuple[tuple[str, ...], ...]:
    """Header row (the category axis's title, then each series' name), then a row per
    category; series without categories are numbered 1, 2, ..."""
    if not series or not any(any(v for v in s.values) for s in series):
        return ()
    length = max(len(categories), *(len(s.values) for s in series))
    names = [s.name or f"Series {i}" for i, s in enumerate(series, 1)]
    header = (axis_titles[0] if axis_titles else "", *names)
    rows = [header]
    for index in range(length):
        category = categories[index] if index < len(categories) else str(index + 1)
        rows.append((category, *(s.values[index] if index < len(s.values) else ""
                                 for s in series)))
    return tuple(rows)
