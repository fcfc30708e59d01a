"""Tables against the pdf-dev ground truth that labels tables and figures (GROBID full-text
TEI, S2ORC TEI): a table on every page whose ground truth has one, none elsewhere.

A ground-truth table's page is the page of the reference text (poppler's, shipped in the
corpus) where its label starts a line. Skipped when the corpus is not there; `make
test-slow`."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.document import BlockKind

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pdf-dev"


def truth_table_labels(folder: Path) -> list[str] | None:
    """Table labels (`Table 1`) of a ground truth that marks tables and figures; None
    for one that does not (a header-only record says nothing about tables)."""
    for path in sorted(folder.glob("*.xml")):
        text = path.read_text(errors="replace")
        if path.name.endswith("fulltext.tei.xml"):
            # GROBID's training TEI opens each table figure with its caption's text.
            bodies = re.findall(r'<figure type="table"[^>]*>(.*?)</figure>', text, re.S)
            found = [re.sub(r"<[^>]+>", " ", body).strip() for body in bodies]
            return [m.group(0) for body in found if (m := re.match(r"Table\s+\w+", body))]
        if "<TEI" in text and "<figure" not in text and 'type="table"' in text:
            return sorted(set(re.findall(r'<ref type="table"[^>]*>(Table\s+\d+)', text)))
    return None


JUDGED = []
if CORPUS.is_dir():
    for folder in sorted((CORPUS / "groundtruth").glob("A*")):
        labels = truth_table_labels(folder)
        pdf = next((CORPUS / "files").glob(folder.name + ".pdf"), None)
        if labels is not None and pdf is not None:
            JUDGED.append((folder.name, labels))
pytestmark = [pytest.mark.skipif(not JUDGED, reason="pdf-dev corpus not present"),
              pytest.mark.slow]


@pytest.mark.parametrize(("name", "labels"), JUDGED, ids=[n for n, _ in JUDGED])
def test_tables_stand_on_the_pages_the_ground_truth_puts_them(name: str,
                                                              labels: list[str]) -> None:
    pages = (CORPUS / "pdftotext" / f"{name}.raw.txt").read_text().split("\f")
    expected: Counter[int] = Counter()
    for label in labels:
        page = next(number for number, text in enumerate(pages, start=1)
                    if re.search(rf"(?m)^\s*{re.escape(label)}\b", text))
        expected[page] += 1
    document = PdfminerExtractor().extract_sync((CORPUS / "files" / f"{name}.pdf").read_bytes())
    found = Counter(b.draft.pages[0] for b in document.blocks
                    if b.draft.kind is BlockKind.TABLE)
    assert set(found) == set(expected), (found, expected)
    assert all(found[page] >= count for page, count in expected.items()), (found, expected)
