"""Sentence boundaries with exact offsets, for quoting by position and for chunking."""

from __future__ import annotations

import re

# Tokens that end with a full stop without ending a sentence (compared lower-cased,
# without the final stop).
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "et", "al", "etc", "vs", "cf", "fig", "figs", "eq", "eqs", "no", "nos",
    "vol", "vols", "pp", "p", "ch", "sec", "secs", "ref", "refs", "approx", "dr", "mr", "mrs",
    "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "univ", "est", "min",
    "max", "ca", "viz", "resp", "u.s", "u.k", "u.n", "a.m", "p.m", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "ed", "eds", "tab", "suppl",
    "mol", "wt", "temp", "lit",
})

_CANDIDATE = re.compile(
    r"""(?<=[.!?…])["'”’»)\]]*(?=\s+["'“‘«(\[]*[A-Z0-9\u00c0-\u024f\u0370-\u03ff])""")
_WORD_BEFORE = re.compile(r"(\S+)$")
_INITIAL = re.compile(r"^(?:[A-Z]\.)+$")
_NUMBERED_LIST = re.compile(r"^\(?\d{1,3}[.)]$")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans inside `text[start:end]`, whitespace excluded at both ends.

    A stop ends a sentence when whitespace and a capital, digit or opening quote follow,
    unless the word it ends is an abbreviation (e.g., et al., Fig., Dr., U.S.), a single
    initial ("J."), or a list number. Ellipses, citation markers ("[12].") and closing
    quotes or brackets after the stop are handled; decimals, URLs and DOIs never contain
    a stop followed by whitespace, so they are not split."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    for line_start, line_end in _paragraph_pieces(text, start, end):
        cursor = line_start
        for match in _CANDIDATE.finditer(text, line_start, line_end):
            boundary = match.end()
            if _is_abbreviation(text[cursor:match.start()]):
                continue
            _append(text, spans, cursor, boundary)
            cursor = boundary
        _append(text, spans, cursor, line_end)
    return spans


def _paragraph_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Blank lines always separate sentences."""
    pieces = []
    cursor = start
    for match in re.finditer(r"\n[ \t]*\n", text[start:end]):
        pieces.append((cursor, start + match.start()))
        cursor = start + match.end()
    pieces.append((cursor, end))
    return pieces


def _is_abbreviation(before: str) -> bool:
    stripped = before.rstrip("\"'”’»)]")
    if not stripped.endswith("."):
        return False
    match = _WORD_BEFORE.search(stripped)
    if not match:
        return False
    word = match.group(1).lstrip("(\"'“‘[")
    core = word[:-1].lower()
    if core in ABBREVIATIONS or _INITIAL.match(word) or _NUMBERED_LIST.match(word):
        return True
    return word.count(".") >= 2 and len(word) <= 6  # "U.S.", "e.g." spelled oddly


def _append(text: str, spans: list[tuple[int, int]], start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))
