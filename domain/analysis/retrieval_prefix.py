"""The markers of a snippet's retrieval prefix, and the text with them taken out.

`chunking` heads every snippet's retrieval text with `[DOC: …] [PATH: …] [SECTION: …]`
and enrichment with `[CONTEXT: …]`: what they hold (title, heading path, section label,
context) ranks as words of the snippet, the markers themselves are no words. Every store
indexes `marker_free(retrieval_text)`, so that a query for "section", "doc" or "path"
does not match every snippet and snippet lengths count only words (one ranking contract
across the stores, issue 35)."""

from __future__ import annotations

import re

PREFIX_MARKERS = r"(^|\n|\] )\[(CONTEXT|DOC|PATH|SECTION): "
"""A marker's opening where chunking or enrichment writes one: at the start of the text,
of a line, or after the marker before it. Written for both Python's `re` and RE2
(DuckDB's and PostgreSQL's `regexp_replace` read it too); the replacement is `\\1`, the
text before the marker. The closing `]` stays: every tokenizer drops it as punctuation."""

_MARKERS = re.compile(PREFIX_MARKERS)


def marker_free(retrieval_text: str) -> str:
    """`retrieval_text` with its prefix markers taken out and what they hold kept."""
    return _MARKERS.sub(r"\1", retrieval_text)
