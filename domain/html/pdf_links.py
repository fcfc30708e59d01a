"""Finding where the PDF of an HTML page lives, strongest evidence first."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit, urlunsplit

import attrs

from ..document.document import Link
from ..document.metadata import DocumentMetadata

_ARXIV_ABS = re.compile(r"^/abs/(.+?)/?$")
_PDF_WORDS = re.compile(r"\b(?:pdf|full[\s-]?text)\b", re.IGNORECASE)
_DOWNLOAD_PDF = re.compile(r"\b(?:download|view|get|open)\b.*\bpdf\b|\bpdf\b", re.IGNORECASE)
_NOT_THE_ARTICLE = re.compile(
    r"supplement|supporting|appendix|figure|slides|poster|erratum|correction|citation|"
    r"\bris\b|bibtex|licen[cs]e|terms|policy|guide|brochure|catalog",
    re.IGNORECASE,
)


@attrs.frozen
class PdfCandidate:
    """A URL that may hold the page's PDF, why it was chosen and how strongly."""

    url: str
    reason: str
    strength: int
    strong: bool
    """Declared by the page itself (metadata, link relation, known URL scheme)."""


def pdf_link_candidates(
    metadata: DocumentMetadata, links: tuple[Link, ...], page_url: str
) -> tuple[PdfCandidate, ...]:
    """Candidate PDF URLs for a page, best first, without duplicates or the page itself."""
    found: list[PdfCandidate] = []
    if metadata.citation_pdf_url:
        found.append(PdfCandidate(urljoin(page_url, metadata.citation_pdf_url),
                                  "citation_pdf_url meta tag", 100, True))
    for link in links:
        if link.rel and "alternate" in link.rel.split() and link.media_type == "application/pdf":
            found.append(PdfCandidate(urljoin(page_url, link.url),
                                      '<link rel="alternate" type="application/pdf">', 90, True))
    arxiv = _arxiv_pdf(page_url)
    if arxiv:
        found.append(PdfCandidate(arxiv, "arXiv abstract page -> its PDF", 85, True))
    for link in links:
        if link.rel:
            continue
        strength = _anchor_strength(link)
        if strength:
            found.append(PdfCandidate(urljoin(page_url, link.url),
                                      f"link {link.text.strip()[:40]!r} points to a PDF",
                                      strength, False))
    page = _without_fragment(page_url)
    seen: set[str] = set()
    ranked: list[PdfCandidate] = []
    for candidate in sorted(found, key=lambda c: -c.strength):
        key = _without_fragment(candidate.url)
        if key in seen or key == page or urlsplit(key).scheme not in ("http", "https"):
            continue
        seen.add(key)
        ranked.append(candidate)
    return tuple(ranked)


def _anchor_strength(link: Link) -> int:
    text = " ".join(link.text.split())
    path = urlsplit(link.url).path.lower()
    if _NOT_THE_ARTICLE.search(text) or _NOT_THE_ARTICLE.search(path):
        return 0
    if path.endswith(".pdf") or "/pdf/" in path or path.endswith("/pdf"):
        return 70 if _DOWNLOAD_PDF.search(text) else 55
    if _PDF_WORDS.search(text) and len(text) <= 60:
        return 50
    return 0


def _arxiv_pdf(page_url: str) -> str | None:
    parts = urlsplit(page_url)
    host = (parts.hostname or "").lower()
    if host not in ("arxiv.org", "www.arxiv.org", "export.arxiv.org"):
        return None
    match = _ARXIV_ABS.match(parts.path)
    return f"https://arxiv.org/pdf/{match.group(1)}" if match else None


def _without_fragment(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))
