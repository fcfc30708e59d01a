"""The Snowball English stemmer (Porter2), as snowballstem.org describes it and as the
libstemmer inside DuckDB's fts extension applies it: a query's words stemmed here give
the very terms the DuckDB store's full-text index was made with at ingest.

Written from the algorithm's published description, and held to DuckDB's `stem(w,
'english')` byte for byte by the tests (its libstemmer has the classic exception lists
and region prefixes: 'gener', 'commun', 'arsen'). The steps find their suffix by the
last two letters and a short list, longest first; no regular expression but one
vowel search.

Its words are those sheaf's tokenizer makes of ASCII text: lower-case, no apostrophe
(the tokenizer splits there); any other ASCII character counts as a non-vowel, as the
Snowball text treats every letter but a, e, i, o, u and y.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_VOWELS = frozenset("aeiouy")
_VOWEL = re.compile("[aeiouy]")
_LI_ENDINGS = frozenset("cdeghkmnrt")
_DOUBLES = frozenset({"bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"})
_NO_SHORT_END = frozenset("wxY")

_WHOLE_WORDS = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
    "idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
    "singly": "singl",
    **{w: w for w in ("sky", "news", "howe", "atlas", "cosmos", "bias", "andes")},
}
"""Words stemmed as a whole (the algorithm's first exception list)."""
_LEFT_AFTER_STEP_1A = frozenset({"inning", "outing", "canning", "herring", "earring",
                                 "proceed", "exceed", "succeed"})
"""Words left as step 1a leaves them (its second list)."""
_REGION_PREFIXES = ("gener", "commun", "arsen")
"""Prefixes R1 begins after, whatever their letters."""


def _by_ending(suffixes: Mapping[str, str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Suffix and replacement grouped by their last two letters, longest first: the
    step's suffix is the longest of its list the word ends with."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for suffix, replacement in suffixes.items():
        grouped.setdefault(suffix[-2:], []).append((suffix, replacement))
    return {end: tuple(sorted(pairs, key=lambda p: -len(p[0]))) for end, pairs in grouped.items()}


# "ogi" and "li" carry conditions on the letter before them (see `_step_2`).
_STEP_2 = _by_ending({
    "tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
    "izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
    "alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous",
    "ousness": "ous", "iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
    "ogi": "og", "fulli": "ful", "lessli": "less", "li": "",
})
# "ative" is deleted in R2 only (see `_step_3`).
_STEP_3 = _by_ending({
    "tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic",
    "ical": "ic", "ful": "", "ness": "", "ative": "",
})
# "ion" goes only after an s or a t (see `_step_4`).
_STEP_4 = _by_ending({s: "" for s in (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism",
    "ate", "iti", "ous", "ive", "ize", "ion")})


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case `word` without apostrophes."""
    whole = _WHOLE_WORDS.get(word)
    if whole is not None:
        return whole
    if len(word) < 3:
        return word
    if "y" in word:
        word = _marked_ys(word)
    r1, r2 = _regions(word)
    word = _step_1a(word)
    if word not in _LEFT_AFTER_STEP_1A:
        word = _step_1b(word, r1)
        # Step 1c: a final y after a non-vowel that is not the first letter becomes i.
        if len(word) > 2 and word[-1] in "yY" and word[-2] not in _VOWELS:
            word = word[:-1] + "i"
        word = _step_2(word, r1)
        word = _step_3(word, r1, r2)
        word = _step_4(word, r2)
        word = _step_5(word, r1, r2)
    return word.replace("Y", "y") if "Y" in word else word


def stems(words: Iterable[str]) -> dict[str, str]:
    """Each distinct word of `words` with its `stem`."""
    return {w: stem(w) for w in set(words)}


def _marked_ys(word: str) -> str:
    """`word` with its consonant y's (first letter, or after a vowel) written Y: a Y is
    not a vowel to the steps that follow."""
    letters = list(word)
    if letters[0] == "y":
        letters[0] = "Y"
    for i in range(1, len(letters)):
        if letters[i] == "y" and letters[i - 1] in _VOWELS:
            letters[i] = "Y"
    return "".join(letters)


def _after_vowel_consonant(word: str, start: int) -> int:
    """Where the region after the first non-vowel following a vowel, from `start`,
    begins (the word's length if there is none)."""
    end = len(word)
    at = start
    while at < end and word[at] not in _VOWELS:
        at += 1
    at += 1
    while at < end and word[at] in _VOWELS:
        at += 1
    return min(at + 1, end)


def _regions(word: str) -> tuple[int, int]:
    """Where R1 and R2 begin."""
    for prefix in _REGION_PREFIXES:
        if word.startswith(prefix):
            r1 = len(prefix)
            break
    else:
        r1 = _after_vowel_consonant(word, 0)
    return r1, _after_vowel_consonant(word, r1)


def _ends_short(word: str) -> bool:
    """Whether `word` ends in a short syllable: non-vowel, vowel, then a non-vowel other
    than w, x or Y; or, as the whole word, a vowel then a non-vowel."""
    if len(word) == 2:
        return word[0] in _VOWELS and word[1] not in _VOWELS
    return (len(word) > 2 and word[-1] not in _VOWELS and word[-1] not in _NO_SHORT_END
            and word[-2] in _VOWELS and word[-3] not in _VOWELS)


def _step_1a(word: str) -> str:
    last = word[-1]
    if last == "s":
        if word.endswith("sses"):
            return word[:-2]
        if word.endswith("ies"):
            return word[:-2] if len(word) > 4 else word[:-1]
        if word[-2] in "su":  # "ss" and "us" stay
            return word
        # A vowel before the letter ahead of the s: "gaps" loses it, "gas" keeps it.
        return word[:-1] if _VOWEL.search(word, 0, len(word) - 2) else word
    if last == "d" and word.endswith("ied"):
        return word[:-2] if len(word) > 4 else word[:-1]
    return word


def _step_1b(word: str, r1: int) -> str:
    if word.endswith("eedly"):
        return word[:-3] if len(word) - 5 >= r1 else word
    if word.endswith("ingly"):
        cut = 5
    elif word.endswith("edly"):
        cut = 4
    elif word.endswith("eed"):
        return word[:-1] if len(word) - 3 >= r1 else word
    elif word.endswith("ing"):
        cut = 3
    elif word.endswith("ed"):
        cut = 2
    else:
        return word
    if not _VOWEL.search(word, 0, len(word) - cut):
        return word
    word = word[:-cut]
    end = word[-2:]
    if end in ("at", "bl", "iz"):
        return word + "e"
    if end in _DOUBLES:
        return word[:-1]
    if len(word) <= r1 and _ends_short(word):  # a short word: R1 empty, short end
        return word + "e"
    return word


def _suffix(table: dict[str, tuple[tuple[str, str], ...]], word: str) -> tuple[str, str] | None:
    """The longest suffix of the step's table that `word` ends with, and its
    replacement."""
    for pair in table.get(word[-2:], ()):
        if word.endswith(pair[0]):
            return pair
    return None


def _step_2(word: str, r1: int) -> str:
    found = _suffix(_STEP_2, word)
    if found is None:
        return word
    suffix, replacement = found
    start = len(word) - len(suffix)
    if start < r1:
        return word
    if suffix == "ogi":
        return word[:start] + replacement if word[start - 1] == "l" else word
    if suffix == "li":
        return word[:start] if word[start - 1] in _LI_ENDINGS else word
    return word[:start] + replacement


def _step_3(word: str, r1: int, r2: int) -> str:
    found = _suffix(_STEP_3, word)
    if found is None:
        return word
    suffix, replacement = found
    start = len(word) - len(suffix)
    if start < r1 or (suffix == "ative" and start < r2):
        return word
    return word[:start] + replacement


def _step_4(word: str, r2: int) -> str:
    found = _suffix(_STEP_4, word)
    if found is None:
        return word
    start = len(word) - len(found[0])
    if start < r2 or (found[0] == "ion" and word[start - 1] not in "st"):
        return word
    return word[:start]


def _step_5(word: str, r1: int, r2: int) -> str:
    last = len(word) - 1
    if word[-1] == "e":
        if last >= r2 or (last >= r1 and not _ends_short(word[:-1])):
            return word[:-1]
    elif word[-1] == "l" and last >= r2 and word[-2] == "l":
        return word[:-1]
    return word
