"""Judging whether an extracted HTML page is the full text or only a landing page."""

from __future__ import annotations

import re

import attrs

from ..document.document import Document

FULL_TEXT_WORDS = 1500
"""A research article's body is rarely under this; abstracts and landing pages are far below."""
MINIMUM_BODY_WORDS = 150
_BODY_SECTIONS = re.compile(
    r"\b(?:introduction|background|methods?|methodology|materials|results|discussion|"
    r"conclusions?|experiments?|evaluation|related work)\b",
    re.IGNORECASE,
)
_PAYWALL = re.compile(
    r"\b(?:buy (?:this )?article|purchase (?:access|pdf|this article)|subscribe to (?:read|"
    r"access)|access through your institution|log ?in to (?:read|access|view)|"
    r"institutional access|rent this article|get access|preview of subscription content)\b",
    re.IGNORECASE,
)


@attrs.frozen
class FullTextAssessment:
    """Whether the page is the article itself, and why that was concluded."""

    is_full_text: bool
    reason: str


def assess_full_text(document: Document) -> FullTextAssessment:
    """Full text when the body is long or carries the sections of a paper, unless a paywall
    notice sits over a short body."""
    words = document.word_count
    sections = {m.group(0).lower() for h in document.headings()
                for m in _BODY_SECTIONS.finditer(h.draft.text)}
    paywall = _PAYWALL.search(document.text)
    if words < MINIMUM_BODY_WORDS:
        return FullTextAssessment(False, f"too little body text ({words} words)")
    if paywall and words < FULL_TEXT_WORDS:
        return FullTextAssessment(
            False, f"paywall notice {paywall.group(0)!r} over {words} words of text")
    if len(sections) >= 2:
        return FullTextAssessment(
            True, f"{words} words with body sections ({', '.join(sorted(sections))})")
    if words >= FULL_TEXT_WORDS:
        return FullTextAssessment(True, f"{words} words of body text")
    return FullTextAssessment(False, f"abstract or landing page ({words} words, "
                                     f"{len(sections)} body section headings)")
