"""Sentence boundaries with exact offsets, for quoting by position and for chunking.

Covers the scripts sheaf extracts (ADR-0015): Latin, Greek, Cyrillic and Armenian (a stop,
then whitespace, then a capital or a letter of a caseless script), Arabic, Urdu and Hebrew
(`.`, `؟`, `۔`), Devanagari (`।`, `॥`), Ethiopic (`።`), CJK (`。！？` need no following
space) and Thai (whose writers put a space, not a stop, between sentences).
"""

from __future__ import annotations

import re

# Tokens that end with a full stop without ending a sentence (compared lower-cased,
# without the final stop). Single letters ("J.", "S.", "г.") are always abbreviations.
ENGLISH_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "et", "al", "etc", "vs", "cf", "fig", "figs", "eq", "eqs", "no", "nos",
    "vol", "vols", "pp", "ch", "sec", "secs", "ref", "refs", "approx", "dr", "mr", "mrs",
    "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "univ", "est", "min",
    "max", "ca", "viz", "resp", "u.s", "u.k", "u.n", "a.m", "p.m", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "ed", "eds", "tab", "suppl",
    "mol", "wt", "temp", "lit",
})
GERMAN_ABBREVIATIONS = frozenset({
    "z.b", "bzw", "usw", "vgl", "nr", "abb", "d.h", "u.a", "evtl", "ggf", "z.t", "hr", "fr",
    "jh", "jhd", "tel", "str", "bd", "bde", "hrsg", "inkl", "zzgl", "sog", "ggü", "bspw",
    "mio", "mrd", "gem", "lt", "ebd", "anm", "aufl", "kap", "u.ä", "o.ä", "s.o", "s.u",
    "dt", "engl", "franz", "geb", "gest", "allg", "insb", "v.a", "z.zt",
})
FRENCH_ABBREVIATIONS = frozenset({
    "mme", "mmes", "mlle", "mlles", "mm", "env", "av", "apr", "chap", "éd", "éds", "p.ex",
    "ex", "réf", "vol", "t", "n°", "nº", "art", "coll", "dir", "trad", "hab", "sq", "sqq",
    "janv", "févr", "avr", "juil", "sept", "oct", "nov", "déc", "cie", "ste", "bd",
})
SPANISH_ABBREVIATIONS = frozenset({
    "sra", "sres", "sras", "srta", "ud", "uds", "vd", "vds", "dra", "pág", "págs", "núm",
    "aprox", "avda", "dcha", "izq", "izqda", "ee.uu", "p.ej", "admón", "cía", "dpto",
    "etc", "fdo", "ntra", "sta", "sto", "tel", "vol", "cap", "ej", "pral", "prof", "profa",
    "lic", "ing", "arq", "gral", "cnel", "excmo", "ilmo",
})
RUSSIAN_ABBREVIATIONS = frozenset({
    "т.е", "т.д", "т.п", "т.к", "т.н", "т.о", "др", "пр", "см", "ср", "ул", "им", "рис",
    "стр", "тыс", "млн", "млрд", "руб", "коп", "проф", "акад", "гг", "вв", "обл", "жен",
    "муж", "напр", "прим", "ред", "изд", "табл", "гл", "доц", "канд", "тов", "св", "пос",
    "тт", "кв", "корп", "д.т.н", "к.т.н", "и.о", "н.э", "до н.э",
})
# Abbreviations that usually close a list, so end a sentence when a capital follows.
LIST_ENDINGS = frozenset({"etc", "usw", "т.д", "т.п", "др", "u.ä", "o.ä", "etc.pp"})
ABBREVIATIONS = (ENGLISH_ABBREVIATIONS | GERMAN_ABBREVIATIONS | FRENCH_ABBREVIATIONS
                 | SPANISH_ABBREVIATIONS | RUSSIAN_ABBREVIATIONS)

_CLOSERS = "\"'”’»›)\\]」』）〕】》〉"
_OPENERS = "\"'“‘„‚«‹(\\[¿¡「『（〔【《〈"
# A stop that needs whitespace after it, then a sentence start (checked in Python).
_SPACED = re.compile(
    rf"(?<=[.!?…‼⁇⁈⁉\u037e؟۔।॥։።፧])[{_CLOSERS}]*(?:[ \u00a0\u202f][»›])?"
    rf"(?=\s+(?:[{_OPENERS}][ \u00a0\u202f]*)*(\S))")
# Full-width stops end a sentence with or without a space; so do ASCII "!" and "?" right
# before a CJK character, as Chinese writers often type them.
_UNSPACED = re.compile(
    rf"[。！？｡]+[{_CLOSERS}]*|[!?]+[{_CLOSERS}]*(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])")
_THAI_SPACE = re.compile(r"(?<=[\u0e01-\u0e5b])[ \t]+(?=[\u0e01-\u0e5b])")
# Words a number follows as a reference ("Fig. 3."), not as an ordinal ("3. Oktober").
_NUMBERED_THINGS = frozenset({
    "fig", "figs", "figure", "figures", "eq", "eqs", "equation", "tab", "table", "tables",
    "no", "nos", "nr", "abb", "s", "p", "pp", "page", "pages", "ref", "refs", "sec",
    "section", "ch", "chapter", "vol", "volume", "step", "item", "art", "pág", "núm", "рис",
    "стр", "табл", "гл", "с",
})
_WORD_BEFORE = re.compile(r"(\S+)$")
_NUMBERED_LIST = re.compile(r"^\(?\d{1,3}[.)]$")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans inside `text[start:end]`, whitespace excluded at both ends.

    A stop (`.!?…`, or a script's own: `؟ ۔ । ॥ ።`) ends a sentence when whitespace
    follows and then, past any opening quote, a capital, a digit or a letter of a
    caseless script (Arabic, Hebrew, CJK, Devanagari...), unless the word it ends is an
    abbreviation (e.g., et al., z.B., Mme, т.е.), a single letter ("J.", "S.") or a list
    number. `。！？` end a sentence with no space after them. Blank lines always do.
    Decimals, URLs and DOIs never contain a stop followed by whitespace, so they are not
    split."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    for piece_start, piece_end in _paragraph_pieces(text, start, end):
        cursor = piece_start
        for boundary, stop_end, checked in _candidates(text, piece_start, piece_end):
            if boundary <= cursor or (checked and _is_abbreviation(text[cursor:stop_end])):
                continue
            _append(text, spans, cursor, boundary)
            cursor = boundary
        _append(text, spans, cursor, piece_end)
    return spans


def _candidates(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """(boundary, end of the stop and its closers, whether abbreviations may veto it),
    in text order."""
    found: list[tuple[int, int, bool]] = []
    for match in _SPACED.finditer(text, start, end):
        follower = match.group(1)
        if follower.isupper() or follower.isdigit() or (
                follower.isalpha() and not follower.islower()):
            found.append((match.end(), match.end(), True))
    found.extend((m.end(), m.end(), False) for m in _UNSPACED.finditer(text, start, end))
    found.extend((m.start(), m.start(), False) for m in _THAI_SPACE.finditer(text, start, end))
    return sorted(found)


def _paragraph_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Blank lines always separate sentences."""
    pieces = []
    cursor = start
    for match in re.finditer(r"\n[ \t]*\n", text[start:end]):
        pieces.append((cursor, start + match.start()))
        cursor = start + match.end()
    pieces.append((cursor, end))
    return pieces


# The bracket classes without their regex escapes, for str.rstrip and str.lstrip.
_CLOSER_CHARACTERS = _CLOSERS.replace("\\", "")
_OPENER_CHARACTERS = _OPENERS.replace("\\", "")


def _is_abbreviation(before: str) -> bool:
    stripped = before.rstrip(_CLOSER_CHARACTERS)
    if not stripped.endswith("."):
        return False
    match = _WORD_BEFORE.search(stripped)
    if not match:
        return False
    word = match.group(1).lstrip(_OPENER_CHARACTERS)
    core = word[:-1].lower()
    two_words = stripped[max(0, match.start() - 8):].split()
    joined = "".join(two_words[-2:])[:-1].lower() if len(two_words) >= 2 else ""
    if core in LIST_ENDINGS or joined in LIST_ENDINGS:
        return False
    if _NUMBERED_LIST.match(word):
        # "1. First item", "am 3. Oktober"; but "in Fig. 3. The" ends after its number.
        previous = stripped[:match.start()].split()[-1:]
        return not previous or previous[0].rstrip(".").lower() not in _NUMBERED_THINGS
    if core in ABBREVIATIONS:
        return True
    if _is_initials(word):
        return True
    if joined in ABBREVIATIONS:  # "т. е.", "z. B.": an abbreviation spelled with a space
        return True
    return word.count(".") >= 2 and len(word) <= 6  # "U.S.", "e.g." spelled oddly


def _is_initials(word: str) -> bool:
    """"J.", "J.R.", "S.", "г.": one letter then a stop, once or more."""
    parts = word[:-1].split(".")
    return all(len(p) == 1 and p.isalpha() for p in parts)


def _append(text: str, spans: list[tuple[int, int]], start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))
