"""A page parsed once into what extraction decides from: tree, candidates, metadata and
the block evidence (shared by the extractor and the classifier's training script)."""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

import attrs

from ...domain.document.document import Link
from ...domain.document.metadata import DocumentMetadata
from .block_builder import clean_inline
from .content_root import RootCandidate, content_root_candidates, page_titles
from .document_parsing import parse_document
from .element_rules import is_skipped
from .nesting_depth import check_nesting
from .page_evidence import PageEvidence, page_evidence
from .page_metadata import read_metadata, structured_article_body
from .script_stripping import strip_scripts


@attrs.frozen
class PageInputs:
    """One parsed page and the evidence root choice weighs."""

    html: Element
    body: Element
    candidates: list[RootCandidate]
    metadata: DocumentMetadata
    head_links: list[Link]
    json_ld: list[dict[str, Any]]
    structured_body: str | None
    titles: set[str]
    evidence: PageEvidence


def read_page(raw: bytes, url: str, charset: str | None = None) -> PageInputs:
    """Parse `raw` and gather the candidates, metadata and block evidence. Raises the
    typed errors of parsing (nesting too deep)."""
    stripped = strip_scripts(raw)
    check_nesting(stripped, url=url)
    html = parse_document(stripped, charset)
    body = next(html.iter("body"), html)
    candidates = content_root_candidates(html)
    metadata, head_links, json_ld = read_metadata(
        html, url, first_heading(candidates[0].element) or first_heading(html))
    structured = structured_article_body(json_ld)
    titles = page_titles(html) | ({" ".join(metadata.title.lower().split())}
                                  if metadata.title else set())
    evidence = page_evidence(body, cascade_root=candidates[0].element,
                             cascade_parts=candidates[0].parts, titles=titles,
                             structured_body=structured)
    return PageInputs(html, body, candidates, metadata, head_links, json_ld, structured,
                      titles, evidence)


def first_heading(root: Element) -> str | None:
    """The text of the first visible <h1> under `root`."""
    for element in root.iter("h1"):
        if not is_skipped(element, inside_root=True):
            text = clean_inline("".join(element.itertext()))
            if text:
                return text
    return None
