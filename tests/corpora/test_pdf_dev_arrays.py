"""The layout steps worked out over arrays give the dev papers the same documents as the
steps they replace, on both engines (ADR-0042, third and fourth passes): pdfminer's own
line grouping and neighbour search, text-box pairs pushed one by one and grouped on
pdfminer's Plane, glyphs as plain `LTChar`, hyphen breaks searched over the whole
paragraph, the collector left running, the stream pre-check reading every page's
resources again, a box's text cleaned each time it is read. Text and notes must be
identical.

Skipped when the corpus is not there; `make test-slow`."""

from __future__ import annotations

import contextlib
import heapq
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest
from pdfminer.layout import (
    LAParams,
    LTChar,
    LTLayoutContainer,
    LTTextBox,
    LTTextGroupLRTB,
    LTTextLine,
)

from sheaf.adapters.pdf import (
    glyph_boxes,
    pdfium_layout,
    pdfminer_extractor,
    stable_grouping,
    stream_bounds,
)
from sheaf.adapters.pdf.line_grouping import LineGrouping
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.pdf import furniture, structure
from sheaf.domain.pdf.structure import TextBox, clean_text
from tests.pdf_replaced_steps import join_searching_whole_paragraph, walk_reading_every_page

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pdf-dev"
FILES = ([e for e in json.loads((CORPUS / "manifest.json").read_text())["entries"]
          if str(e["id"]).startswith("A")] if (CORPUS / "manifest.json").exists() else [])
ENGINES = ["pdfminer", *(["pdfium"] if pdfium_available() else [])]
pytestmark = [pytest.mark.skipif(not FILES, reason="pdf-dev corpus not present"),
              pytest.mark.slow]

def _pairs_one_by_one(boxes: Sequence[LTTextBox]) -> list[tuple[bool, float, int, int]]:
    queue = [(False, stable_grouping._wasted_area(a, b), i, j) for i, a in enumerate(boxes)
             for j, b in enumerate(boxes[i + 1:], start=i + 1)]
    heapq.heapify(queue)
    return queue


def _pdfminers_boxes(self: LTLayoutContainer, laparams: LAParams, lines: Iterable[LTTextLine]
                     ) -> Iterator[LTTextBox]:
    return LTLayoutContainer.group_textlines(self, laparams, lines)


def _grouped_on_plane(container: LTLayoutContainer, boxes: Sequence[LTTextBox]
                      ) -> list[object]:
    horizontal = (stable_grouping.RightToLeftGroup
                  if stable_grouping.mostly_right_to_left(boxes) else LTTextGroupLRTB)
    return stable_grouping._group_on_plane(container, boxes, horizontal)


def _pdfminers_lines(self: LTLayoutContainer, laparams: LAParams, objs: Iterable[LTChar]
                     ) -> Iterator[LTTextLine]:
    return LTLayoutContainer.group_objects(self, laparams, objs)


def _documents(engine: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    extractor = PdfminerExtractor(engine=engine)
    out = {}
    for entry in FILES:
        document = extractor.extract_sync((CORPUS / str(entry["file"])).read_bytes(),
                                          entry.get("password"))
        out[str(entry["id"])] = (document.text, document.notes)
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_the_papers_read_as_with_the_steps_glyph_by_glyph(
        engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = _documents(engine)
    monkeypatch.setattr(LineGrouping, "group_objects", _pdfminers_lines)
    monkeypatch.setattr(stable_grouping, "_first_pairs", _pairs_one_by_one)
    monkeypatch.setattr(glyph_boxes, "GlyphChar", LTChar)
    monkeypatch.setattr(pdfium_layout, "GlyphChar", LTChar)
    monkeypatch.setattr(pdfminer_extractor, "paused_collection", contextlib.nullcontext)
    monkeypatch.setattr(structure, "join_lines", join_searching_whole_paragraph)
    monkeypatch.setattr(furniture, "join_lines", join_searching_whole_paragraph)
    # Fourth pass: pdfminer's neighbour search, grouping on its Plane, the pre-check
    # reading each page's resources again, a box's text cleaned on every reading.
    monkeypatch.setattr(LineGrouping, "group_textlines", _pdfminers_boxes)
    monkeypatch.setattr(stable_grouping, "group_boxes_stably", _grouped_on_plane)
    monkeypatch.setattr(stream_bounds, "_walk", walk_reading_every_page)
    monkeypatch.setattr(TextBox, "text", property(
        lambda box: clean_text([line.text for line in box.lines])))
    before = _documents(engine)
    assert sorted(ours) == sorted(before)
    differing = [name for name in ours if ours[name] != before[name]]
    assert differing == []
