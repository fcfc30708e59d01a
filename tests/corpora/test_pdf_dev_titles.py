"""The title of every pdf-dev paper whose ground truth names one (GROBID header TEI,
CERMINE JATS, science-parse or S2ORC records) is the paper's whole title.

Skipped when the corpus is not there; a sweep of many papers, so `make test-slow`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.pdf_corpus import same_title, truth_title

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pdf-dev"
ENTRIES = (json.loads((CORPUS / "manifest.json").read_text())["entries"]
           if (CORPUS / "manifest.json").exists() else [])
# Only ground-truth titles: a manifest's metadata title would test the metadata.
TITLED = [(e, title) for e in ENTRIES if str(e["id"]).startswith("A")
          and (CORPUS / "groundtruth" / str(e["id"])[:-4]).is_dir()
          and (title := truth_title(CORPUS / "groundtruth" / str(e["id"])[:-4], ""))]
pytestmark = [pytest.mark.skipif(not TITLED, reason="pdf-dev corpus not present"),
              pytest.mark.slow]


@pytest.mark.parametrize(("entry", "title"), TITLED, ids=[e["id"] for e, _ in TITLED])
def test_the_title_is_the_ground_truths(entry: dict[str, object], title: str) -> None:
    document = PdfminerExtractor().extract_sync((CORPUS / str(entry["file"])).read_bytes())
    assert same_title(document.metadata.title, title), (document.metadata.title, title)
