"""Finding a quoted passage in a document's own text: exact, tolerant, then fuzzy.

Every match is reported as a span of the original text, so the words returned are
always the document's own, whatever the query's spelling.
"""

from __future__ import annotations

import attrs

from ..analysis.word_tokens import is_unit_boundary
from ..pdf.text_repairs import LIGATURES
from ..worded_enum import WordedEnum
from .fuzzy_window import best_window

FUZZY_THRESHOLD = 0.85
_FOLD = {**{c: "'" for c in "‘’‚‛′`´"}, **{c: '"' for c in "“”„‟″«»"},
         **{c: "-" for c in "‐‑‒–—―−"}, "…": "...", **LIGATURES}
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")


class MatchKind(WordedEnum):
    EXACT = "exact"
    TOLERANT = "tolerant"
    """Equal once whitespace, line-end hyphens, ligatures, quotes, dashes and case are
    folded."""
    FUZZY = "fuzzy"


@attrs.frozen
class TextMatch:
    start: int
    end: int
    kind: MatchKind
    score: float = 1.0


@attrs.frozen
class QuoteSearch:
    """The matches found, or none and the closest passage with its similarity."""

    matches: tuple[TextMatch, ...]
    closest: TextMatch | None = None

    @property
    def found(self) -> bool:
        return bool(self.matches)


def fold(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the original index."""
    out: list[str] = []
    origin: list[int] = []
    length = len(text)
    i = 0
    while i < length:
        char = text[i]
        if char in _INVISIBLE:
            i += 1
            continue
        if char == "-" and i and text[i - 1].isalpha():
            # A line-end hyphen: "algo-\nrithm" reads "algorithm".
            j = i + 1
            while j < length and text[j] in " \t":
                j += 1
            if j < length and text[j] == "\n":
                j += 1
                while j < length and text[j] in " \t":
                    j += 1
                if j < length and text[j].islower():
                    i = j
                    continue
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                origin.append(i)
            i += 1
            continue
        for piece in _FOLD.get(char, char).lower():
            out.append(piece)
            origin.append(i)
        i += 1
    while out and out[-1] == " ":
        out.pop()
        origin.pop()
    return "".join(out), origin


def find_quote(text: str, query: str, *, find_all: bool = False,
               threshold: float = FUZZY_THRESHOLD) -> QuoteSearch:
    """Exact occurrences first, then tolerant ones, then the best fuzzy window at or above
    `threshold`; when nothing qualifies, the closest passage and its score. Tolerant and
    fuzzy matches and the closest passage start and end on word boundaries (grapheme
    boundaries in scripts without spaces); the cost is near-linear in text and query."""
    query = query.strip()
    if not query:
        return QuoteSearch(())
    exact = _occurrences(text, query, find_all)
    if exact:
        return QuoteSearch(tuple(TextMatch(s, s + len(query), MatchKind.EXACT) for s in exact))
    folded_text, origin = fold(text)
    folded_query, _ = fold(query)
    if not folded_query:
        return QuoteSearch(())
    tolerant = _occurrences(folded_text, folded_query, find_all, on_boundaries=True)
    if tolerant:
        return QuoteSearch(tuple(
            TextMatch(origin[s], origin[s + len(folded_query) - 1] + 1, MatchKind.TOLERANT)
            for s in tolerant))
    best = best_window(folded_text, folded_query)
    if best is None:
        return QuoteSearch(())
    start, end, score = best.start, best.end, best.score
    match = TextMatch(origin[start], origin[end - 1] + 1, MatchKind.FUZZY, round(score, 3))
    if score >= threshold:
        return QuoteSearch((match,))
    return QuoteSearch((), closest=match)


def _occurrences(haystack: str, needle: str, find_all: bool,
                 on_boundaries: bool = False) -> list[int]:
    found: list[int] = []
    at = haystack.find(needle)
    while at != -1:
        if not on_boundaries or (is_unit_boundary(haystack, at)
                                 and is_unit_boundary(haystack, at + len(needle))):
            found.append(at)
            if not find_all:
                break
        at = haystack.find(needle, at + 1)
    return found

