"""Text repairs PDFs need: ligatures, soft hyphens and line-end hyphenation."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "st", "\ufb06": "st"}
_LIGATURE = re.compile("[" + "".join(LIGATURES) + "]")
SPACING_ACCENTS = {"\u00a8": "\u0308", "\u00b4": "\u0301", "\u02c6": "\u0302",
                   "\u02dc": "\u0303", "\u00b8": "\u0327", "\u02c7": "\u030c",
                   "\u02d8": "\u0306", "\u02d9": "\u0307", "\u02da": "\u030a",
                   "\u00af": "\u0304", "\u02dd": "\u030b", "\u02db": "\u0328"}
"""Accents as fonts draw them on their own (TeX's `\\"a` is a diaeresis glyph, then an a),
each with the combining mark it stands for."""
_SPACED_ACCENT = re.compile("([" + "".join(SPACING_ACCENTS) + "])([^\\W\\d_])")
_DOTLESS = {"\u0131": "i", "\u0237": "j"}
MATH_ACCENTS = frozenset("\u02c6\u00af\u02d9\u00a8\u02c7\u02d8\u02da")
"""Spacing accents that stand for nothing but an accent (hat, bar, dot, double dot,
check, breve, ring): before a letter with no precomposed form (TeX's `\\hat\\sigma` is
`ˆσ`) they become its combining mark (σ̂). The acute (an apostrophe in `don´t`) and the
tilde (`˜user` in a URL) are not among them."""
# TeX sets \copyright and \textregistered as a letter over a large circle, two glyphs.
_CIRCLED = re.compile("c[\u25ef\u20dd]|[\u25ef\u20dd]c|R[\u25ef\u20dd]|[\u25ef\u20dd]R")
_BREAK = re.compile(r"(?<=[a-zà-ÿ])-$")


def repair_glyphs(text: str) -> str:
    """Map ligature glyphs to letters, drop soft hyphens, read TeX's circled c and R as
    © and ®, put accents drawn as glyphs of
    their own onto the letter after them (`R¨as¨anen` is Räsänen, `Lemaˆıtre` Lemaître),
    compose to NFC (not NFKC)."""
    text = _LIGATURE.sub(lambda m: LIGATURES[m.group(0)], text).replace("\u00ad", "")
    if "\u25ef" in text or "\u20dd" in text:
        text = _CIRCLED.sub(lambda m: "\u00a9" if "c" in m.group(0) else "\u00ae", text)
    if _SPACED_ACCENT.search(text):
        text = _SPACED_ACCENT.sub(_accented, text)
    return unicodedata.normalize("NFC", text)


def _accented(match: re.Match[str]) -> str:
    # Only where the pair is a letter of some alphabet: an acute used as an apostrophe
    # ("don´t") stays as printed.
    letter = match.group(2)
    if match.group(1) == "\u02dc" and match.string[match.start() - 1:match.start()] == "/":
        return match.group(0)  # a URL's home directory, `/˜user`, not a letter ũ
    composed = unicodedata.normalize("NFC", _DOTLESS.get(letter, letter)
                                     + SPACING_ACCENTS[match.group(1)])
    return composed if len(composed) == 1 or match.group(1) in MATH_ACCENTS else match.group(0)


def join_lines(lines: list[str]) -> str:
    """Join a paragraph's lines. A lower-case word broken with a hyphen at a line end is
    rejoined (`algo-` + `rithm`), unless the part before the break is itself a hyphenated
    compound (`state-of-the-` + `art` keeps its hyphen). Words that are really hyphenated
    at a line end (`well-` + `known`) lose their hyphen: the PDF does not say which it was.
    A line ending in a soft hyphen (U+00AD) is always rejoined, without it."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        # Only the paragraph's last two characters can make a break: the search is
        # kept to them, not the whole paragraph so far, once per line.
        broken = out.endswith("-") and _BREAK.search(out[-2:])
        if out.endswith("\u00ad"):
            # A soft hyphen is where the word was broken, never part of it.
            out = out[:-1] + line
        elif broken and line[:1].islower():
            last_word = out.rsplit(" ", 1)[-1]
            out = out + line if last_word.count("-") > 1 else out[:-1] + line
        else:
            out = out + " " + line
    return out


_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
# A left-to-right word holds separators only between its letters and digits (and a
# closing %): a dash after a section number, `3-`, is right-to-left punctuation.
_LTR_LETTER = r"A-Za-z0-9\u00c0-\u024f"
_LTR_WORD = rf"[{_LTR_LETTER}](?:[{_LTR_LETTER}.,:/%+\-]*[{_LTR_LETTER}%])?"
_LTR_RUN = re.compile(rf"{_LTR_WORD}(?:\s+{_LTR_WORD})*")
# Arabic-Indic and Persian digits run left to right too, but two numbers apart are read
# right to left, so a run is one number (with its separators), not a phrase.
_NUMBER_RUN = re.compile(r"[\u0660-\u0669\u06f0-\u06f9]+(?:[.,:/\u066b\u066c]"
                         r"[\u0660-\u0669\u06f0-\u06f9]+)*")
_MIRRORED = str.maketrans("()[]{}<>", ")(][}{><")


def is_right_to_left(text: str) -> bool:
    """Mostly Arabic, Persian or Hebrew letters."""
    rtl = len(_RTL.findall(text))
    return bool(rtl) and rtl >= sum(c.isalpha() for c in text) - rtl


def visual_to_logical(glyphs: Sequence[str], lefts: Sequence[float] | None = None) -> str:
    """Reading order for a line of glyphs, `lefts` their left edges on the page. A
    right-to-left line is read from its rightmost glyph to its leftmost (a lam-alef
    ligature's "لا" stays whole), then its runs of Latin letters and digits are put back
    the right way round and paired brackets mirrored; other lines are joined in the order
    drawn. Positions, not drawing order, decide a right-to-left line: a PDF may draw a
    word's letters in logical order and the spaces and numbers around them in visual
    order, in one line. Without `lefts` the glyphs are taken as laid out left to right.
    A simplified bidi pass: enough for Arabic, Persian and Hebrew prose with embedded
    numbers and Latin words."""
    text = "".join(glyphs)
    if not is_right_to_left(text):
        return text
    if lefts is not None:
        # A stable sort: glyphs at one position (a mark over its letter) keep their order.
        glyphs = [glyph for _, glyph in sorted(zip(lefts, glyphs, strict=True),
                                                key=lambda pair: pair[0])]
    reversed_line = "".join(reversed(glyphs)).translate(_MIRRORED)
    reversed_line = _LTR_RUN.sub(lambda m: m.group(0)[::-1], reversed_line)
    return _NUMBER_RUN.sub(lambda m: m.group(0)[::-1], reversed_line)
