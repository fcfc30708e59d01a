"""What a search asks for: its mode, filters, grouping and context expansion."""

from __future__ import annotations

import attrs

from ..errors import ErrorKind, SheafError
from ..worded_enum import WordedEnum

MAX_RESULTS = 1000
"""The most hits one search returns (`k`): past it a search is refused, not answered
with an unbounded body (one HTTP answer for an unbounded `k` was 16.9 MB)."""


class SearchMode(WordedEnum):
    AUTO = "auto"
    """Hybrid with a semantic embedder; BM25 without one or with a lexical one."""
    HYBRID = "hybrid"
    BM25 = "bm25"
    VECTOR = "vector"


class Expansion(WordedEnum):
    """How much text around a hit comes back with it."""

    SNIPPET_WINDOW = "snippet-window"
    """The hit's snippet with N neighbouring snippets either side."""
    PARENT_SECTION = "parent-section"
    """The whole section that holds the hit."""
    SECTION_NEIGHBOURHOOD = "section-neighbourhood"
    """The hit's section with N sections either side."""


@attrs.frozen
class SearchFilters:
    """Restrictions every result satisfies; empty means no restriction."""

    document_ids: frozenset[str] = frozenset()
    section_labels: frozenset[str] = frozenset()
    content_sources: frozenset[str] = frozenset()
    """`html`, `pdf` or `raw`: what the text was extracted from."""
    metadata: tuple[tuple[str, str], ...] = ()
    """(key, value) pairs the caller's metadata must hold, all of them."""
    excluded_section_labels: frozenset[str] = frozenset()
    """Section labels no result may have (snippets without a label pass)."""

    @property
    def empty(self) -> bool:
        return not (self.document_ids or self.section_labels or self.content_sources
                    or self.metadata or self.excluded_section_labels)

    def admits_section(self, label: str | None) -> bool:
        if self.section_labels and label not in self.section_labels:
            return False
        return label is None or label not in self.excluded_section_labels


def parse_metadata_filter(items: list[str]) -> tuple[tuple[str, str], ...]:
    """`key=value` strings to pairs; a malformed one is an invalid query."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"metadata filter {item!r} is not key=value")
        pairs.append((key.strip(), value))
    return tuple(pairs)


NO_FILTERS = SearchFilters()
