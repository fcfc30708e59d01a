"""Words and graphemes: the units a quote may start and end on.

A word is a run of letters, digits and the combining marks that belong to them (so a
Devanagari vowel sign or an Arabic vowel mark never starts a unit). In scripts written
without spaces (Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar) every character with
its combining marks is a unit of its own: a grapheme.
"""

from __future__ import annotations

import functools
import re
import unicodedata


def _mark_ranges() -> str:
    """A character class body of every combining mark (Mn, Mc, Me). Above the first two
    planes only the variation selectors are marks; scanning them all would slow imports."""
    ranges: list[tuple[int, int]] = []
    for code in [*range(0x20000), *range(0xE0100, 0xE01F0)]:
        if unicodedata.category(chr(code))[0] == "M":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "")
                   for a, b in ranges)


_NO_SPACE = ("\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
             "\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f")
_NO_SPACE_CHAR = re.compile(rf"[{_NO_SPACE}]")


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The unit, mark and word-character patterns, built on first use: scanning the
    code points for marks costs about 30 ms, which a command that never matches a quote
    (`sheaf list`) should not pay at start-up."""
    marks = _mark_ranges()
    return (re.compile(rf"[{_NO_SPACE}][{marks}]*|(?:(?![{_NO_SPACE}])[^\W_]|[{marks}])+"),
            re.compile(rf"[{marks}]"), re.compile(rf"[^\W_]|[{marks}]"))


def word_units(text: str) -> list[tuple[int, int]]:
    """The spans of `text`'s words and no-space-script graphemes, in order."""
    return [m.span() for m in _patterns()[0].finditer(text)]


def is_unit_boundary(text: str, index: int) -> bool:
    """Whether a quote may start or end at `index`: not inside a word, and not between a
    character and its combining mark."""
    if index <= 0 or index >= len(text):
        return True
    before, after = text[index - 1], text[index]
    _, mark, word_char = _patterns()
    if mark.match(after):
        return False
    if not (word_char.match(before) and word_char.match(after)):
        return True
    return bool(_NO_SPACE_CHAR.match(before) or _NO_SPACE_CHAR.match(after))
