"""Scoring HTML extraction against the three dev corpora, shared by the benchmarks and the
quality gate test (tests/corpora/test_html_quality_gate.py).

Each scorer takes the extracted text (or Document) of every page and returns plain
figures, so the same numbers come out of `make bench-html` and `make test`.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.document.document import BlockKind, Document
from sheaf.domain.document.markdown_rendering import render_plain
from sheaf.domain.errors import SheafError

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
_WORD = re.compile(r"\w+")


# -- loading ---------------------------------------------------------------------------
def load_articles(corpus: Path) -> tuple[dict[str, bytes], dict[str, dict[str, str]]]:
    """articles-dev: page bytes and ground truth by page id."""
    truth = json.loads((corpus / "ground-truth.json").read_text())
    pages = {p.name.split(".")[0]: gzip.decompress(p.read_bytes())
             for p in sorted((corpus / "html").glob("*.html.gz"))}
    return {k: v for k, v in pages.items() if k in truth}, truth


def load_web_pages(corpus: Path) -> tuple[dict[str, bytes], dict[str, dict[str, Any]]]:
    """web-pages-dev: page bytes and `with`/`without` segments by page id."""
    annotations = json.loads((corpus / "annotations.json").read_text())
    pages = {p.name.split(".")[0]: gzip.decompress(p.read_bytes())
             for p in sorted((corpus / "html").glob("*.html.gz"))}
    return {k: v for k, v in pages.items() if k in annotations}, annotations


# -- extractors ------------------------------------------------------------------------
def sheaf_document(html: bytes, url: str) -> Document | None:
    try:
        return Html5libExtractor().extract_sync(html, url)
    except SheafError:
        return None


def sheaf_text(html: bytes, url: str, *, with_title: bool = True) -> str:
    """The extracted document as plain text. `with_title=False` leaves out the `# ` title
    heading that sheaf adds from the metadata, for ground truth that is the body without
    its title (articles-dev)."""
    document = sheaf_document(html, url)
    return plain_body(document, with_title=with_title) if document is not None else ""


def plain_body(document: Document, *, with_title: bool = False) -> str:
    """`document` as plain text, by default without the `# ` title heading sheaf adds."""
    blocks = document.blocks
    if not with_title and blocks and blocks[0].kind is BlockKind.HEADING and blocks[0].level == 1 \
            and blocks[0].draft.text == collapse(document.metadata.title or ""):
        blocks = blocks[1:]
    return "\n\n".join(render_plain(b.draft) for b in blocks)


def trafilatura_text(html: bytes, url: str) -> str:
    import trafilatura  # the bench extra

    return trafilatura.extract(html, url=url, include_tables=True, include_comments=False,
                               include_formatting=False) or ""


# -- articles-dev: word 4-gram shingle F1 ------------------------------------------------
def shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return Counter([tuple(words)]) if words else Counter()
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def shingle_scores(predicted: str, truth: str) -> tuple[float, float, float]:
    """One page's (tp, fp, fn) shingle overlaps, normalised to sum 1."""
    pred, gold = shingles(predicted), shingles(truth)
    tp = sum((pred & gold).values())
    fp = sum(pred.values()) - tp
    fn = sum(gold.values()) - tp
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (1.0, 0.0, 0.0)


def mean_f1(scores: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Precision, recall and F1 from the means of per-page (tp, fp, fn)."""
    tp = sum(s[0] for s in scores) / len(scores)
    fp = sum(s[1] for s in scores) / len(scores)
    fn = sum(s[2] for s in scores) / len(scores)
    return _prf(tp, fp, fn)


def _prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


# -- web-pages-dev: kept / excluded segments ---------------------------------------------
@attrs.frozen
class SegmentScore:
    """Segments of one page: kept ones found (tp), kept ones missing (fn), excluded ones
    found (fp)."""

    tp: int
    fn: int
    fp: int

    @property
    def nothing_kept(self) -> bool:
        return self.tp == 0 and self.fn > 0


def segment_score(text: str, annotation: dict[str, Any]) -> SegmentScore:
    collapsed = " ".join(text.split())
    kept = [" ".join(s.split()) for s in annotation.get("with") or []]
    excluded = [" ".join(s.split()) for s in annotation.get("without") or []]
    tp = sum(1 for s in kept if s and s in collapsed)
    fp = sum(1 for s in excluded if s and s in collapsed)
    return SegmentScore(tp=tp, fn=len([s for s in kept if s]) - tp, fp=fp)


def segments_prf(scores: Iterable[SegmentScore]) -> tuple[float, float, float]:
    """Precision, recall and F1 over all segments of all pages (trafilatura's way)."""
    listed = list(scores)
    return _prf(sum(s.tp for s in listed), sum(s.fp for s in listed), sum(s.fn for s in listed))


# -- scholarly-html-dev: structure and fidelity ------------------------------------------
CHROME = {
    "script": re.compile(r"function\(|function\s*\([^)]*\)\s*\{|\bvar\s+[A-Za-z_$][\w$]*\s*="
                         r"|\bwindow\.[A-Za-z_]"),
    "style": re.compile(r"@media|[\w\]-]\s*\{[^{}]*:[^{}]*;"),
    "cookie banner": re.compile(r"we use cookies|accept all cookies|cookie (?:settings|"
                                r"preferences|policy)", re.IGNORECASE),
    "download link": re.compile(r"(?:^|\n)\s*(?:[-*]\s*)?Download:?\s*(?:$|\n)|"
                                r"\bDownload: (?:PPT|PNG|TIFF|original image)", re.IGNORECASE),
    "reference links": re.compile(r"\bView reference\b|\bWeb of Science® Times Cited\b|"
                                  r"(?:Google Scholar|CrossRef|PubMed){2,}", re.IGNORECASE),
    "arXiv chrome": re.compile(r"Access Paper:|Current browse context:"),
    "rights": re.compile(r"(?:^|\n)#* ?Rights and permissions", re.IGNORECASE),
    "doubled number": re.compile(r"(?:^|\n)\s*(?:[-*]\s*)?\[?(\d{1,4})[.\]]\s+\1\.\s"),
}
MATH_BLOCKS = re.compile(r"\$\$.*?\$\$|\\\(.*?\\\)", re.DOTALL)
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s+")


def normalise_heading(text: str) -> str:
    text = _NUMBERING.sub("", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def collapse(text: str) -> str:
    return " ".join(text.split())


@attrs.frozen
class ScholarlyScore:
    """What one publisher page kept of its manifest entry."""

    page: str
    full_text: bool
    headings_expected: int
    headings_missing: tuple[str, ...]
    sentences_expected: int
    sentences_missing: tuple[str, ...]
    references: int
    references_expected: int | None
    chrome: tuple[str, ...]
    title_heading: bool
    """The Markdown starts with the title as a `# ` heading."""

    @property
    def heading_recall(self) -> float:
        if not self.headings_expected:
            return 1.0
        return 1 - len(self.headings_missing) / self.headings_expected

    @property
    def references_complete(self) -> bool:
        return not self.references_expected or self.references >= self.references_expected


def scholarly_score(entry: dict[str, Any], document: Document | None) -> ScholarlyScore:
    expected = list(entry.get("section_headings") or [])
    sentences = [s["text"] for s in entry.get("sentences") or []]
    if document is None:
        return ScholarlyScore(entry["id"], entry["full_text"], len(expected), tuple(expected),
                              len(sentences), tuple(sentences), 0,
                              entry.get("reference_count"), (), False)
    ours = {normalise_heading(b.draft.text) for b in document.headings()}
    text = collapse(document.text)
    prose = MATH_BLOCKS.sub(" ", document.text)  # TeX braces are the article's own
    title = document.metadata.title or ""
    return ScholarlyScore(
        page=entry["id"], full_text=entry["full_text"],
        headings_expected=len(expected),
        headings_missing=tuple(h for h in expected if normalise_heading(h) not in ours),
        sentences_expected=len(sentences),
        sentences_missing=tuple(s for s in sentences if collapse(s) not in text),
        references=sum(1 for b in document.blocks if b.kind is BlockKind.REFERENCE),
        references_expected=entry.get("reference_count"),
        chrome=tuple(name for name, pattern in CHROME.items() if pattern.search(prose)),
        title_heading=bool(title) and document.text.startswith(f"# {collapse(title)}"),
    )

