"""Finding a quoted passage in a document's own text: exact, tolerant, then fuzzy.

Every match is reported as a span of the original text, so the words returned are
always the document's own, whatever the query's spelling.
"""

from __future__ import annotations

import enum
import re
from difflib import SequenceMatcher

import attrs

from sheaf.domain.pdf_text import LIGATURES

FUZZY_THRESHOLD = 0.85
_FOLD = {**{c: "'" for c in "‘’‚‛′`´"}, **{c: '"' for c in "“”„‟″«»"},
         **{c: "-" for c in "‐‑‒–—―−"}, "…": "...", **LIGATURES}
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
_WORD = re.compile(r"\w{5,}")


class MatchKind(enum.Enum):
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
    `threshold`; when nothing qualifies, the closest passage and its score."""
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
    tolerant = _occurrences(folded_text, folded_query, find_all)
    if tolerant:
        return QuoteSearch(tuple(
            TextMatch(origin[s], origin[s + len(folded_query) - 1] + 1, MatchKind.TOLERANT)
            for s in tolerant))
    best = _best_window(folded_text, folded_query)
    if best is None:
        return QuoteSearch(())
    start, end, score = best
    match = TextMatch(origin[start], origin[end - 1] + 1, MatchKind.FUZZY, round(score, 3))
    if score >= threshold:
        return QuoteSearch((match,))
    return QuoteSearch((), closest=match)


def _occurrences(haystack: str, needle: str, find_all: bool) -> list[int]:
    found: list[int] = []
    at = haystack.find(needle)
    while at != -1:
        found.append(at)
        if not find_all:
            break
        at = haystack.find(needle, at + 1)
    return found


def _best_window(text: str, query: str) -> tuple[int, int, float] | None:
    """The most similar window, probed around occurrences of the query's longest words."""
    words = sorted(set(_WORD.findall(query)), key=len, reverse=True)[:4]
    candidates: set[int] = set()
    for word in words:
        offset = query.find(word)
        for match in list(re.finditer(re.escape(word), text))[:40]:
            candidates.add(max(0, match.start() - offset))
    if not candidates:
        candidates = set(range(0, max(1, len(text) - len(query) + 1),
                               max(1, len(query) // 2)))
        if len(candidates) > 400:
            return None
    best: tuple[int, int, float] | None = None
    slack = max(8, len(query) // 4)
    for anchor in sorted(candidates):
        region_start = max(0, anchor - slack)
        region = text[region_start:anchor + len(query) + slack]
        matcher = SequenceMatcher(None, query, region, autojunk=False)
        blocks = [b for b in matcher.get_matching_blocks() if b.size]
        if not blocks:
            continue
        start = region_start + blocks[0].b
        end = region_start + blocks[-1].b + blocks[-1].size
        matched = sum(b.size for b in blocks)
        score = 2 * matched / (len(query) + (end - start))
        if best is None or score > best[2]:
            best = (start, end, score)
    return best
