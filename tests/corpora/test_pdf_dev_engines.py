"""The two PDF engines held to the same outputs on the pdf-dev papers (ADR-0042): word
recall and precision against poppler's text, heading recall against the ground truth and
the tables found, each within 0.005 of the pdfminer engine's (tables: the same number
per paper, and nearly all of the same shape).

Skipped when the corpus or pypdfium2 is not there; `make test-slow`."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.pdf_corpus import (
    fidelity,
    normalise_heading,
    table_shapes,
    truth_headings,
)
from sheaf.adapters.pdf.pdfium_text import pdfium_available
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.markdown_rendering import document_plain_text

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pdf-dev"
PAPERS = ([e for e in json.loads((CORPUS / "manifest.json").read_text())["entries"]
           if str(e["id"]).startswith("A")] if (CORPUS / "manifest.json").exists() else [])
TOLERANCE = 0.005
pytestmark = [pytest.mark.skipif(not PAPERS, reason="pdf-dev corpus not present"),
              pytest.mark.skipif(not pdfium_available(),
                                 reason="pypdfium2 (the pdfium extra) is not installed"),
              pytest.mark.slow]


def _figures(engine: str) -> dict[str, list[float] | list[str]]:
    extractor = PdfminerExtractor(engine=engine)
    recalls: list[float] = []
    precisions: list[float] = []
    headings: list[float] = []
    tables: list[str] = []
    for entry in PAPERS:
        document = extractor.extract_sync((CORPUS / str(entry["file"])).read_bytes())
        stem = str(entry["id"])[:-4]
        reference = CORPUS / "pdftotext" / f"{stem}.raw.txt"
        if reference.exists():
            recall, precision = fidelity(document_plain_text(document),
                                         reference.read_text())
            recalls.append(recall)
            precisions.append(precision)
        truth = CORPUS / "groundtruth" / stem
        expected = truth_headings(truth) if truth.is_dir() else []
        if len(expected) >= 2:
            ours = {normalise_heading(b.draft.text) for b in document.headings()}
            headings.append(sum(normalise_heading(h) in ours for h in expected)
                            / len(expected))
        tables += [f"{stem}: {shape}" for shape in table_shapes(document)]
    return {"recall": recalls, "precision": precisions, "headings": headings,
            "tables": tables}


@pytest.fixture(scope="module")
def engines() -> dict[str, dict[str, list[float] | list[str]]]:
    return {engine: _figures(engine) for engine in ("pdfminer", "pdfium")}


@pytest.mark.parametrize("figure", ["recall", "precision", "headings"])
def test_the_pdfium_engine_reads_the_papers_as_well(
        engines: dict[str, dict[str, list[float]]], figure: str) -> None:
    base, other = engines["pdfminer"][figure], engines["pdfium"][figure]
    assert len(base) == len(other) > 0
    assert abs(sum(other) / len(other) - sum(base) / len(base)) <= TOLERANCE


def test_the_pdfium_engine_finds_the_same_tables(
        engines: dict[str, dict[str, list[str]]]) -> None:
    base, other = engines["pdfminer"]["tables"], engines["pdfium"]["tables"]
    per_paper = Counter(t.split(":")[0] for t in base)
    assert Counter(t.split(":")[0] for t in other) == per_paper
    same = sum((Counter(base) & Counter(other)).values())
    # A table whose last row or column is read differently still counts as found; at
    # most one in ten may differ in shape.
    assert same >= 0.9 * len(base)
