"""The closed list of differences a verified quote may have from the document's text,
and the canonical form that erases exactly those.

A quote is `verified` only when the document's text and the request are equal once both
are put in this form (and the request's first letter may differ in case, see
`Tolerance.LEADING_CASE`). Each tolerance is a difference of encoding or typesetting,
never of wording: nothing here can turn one claim into another. What a tolerance does
not cover (a changed letter, digit, word, word order or punctuation mark) keeps a quote
from being verified, however small it is.

The canonical form keeps, for each of its characters, the index of the original
character it came from, so a match in it is a span of the document's own text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from array import array

import attrs

from ..pdf.text_repairs import LIGATURES
from ..worded_enum import WordedEnum


class Tolerance(WordedEnum):
    """A difference that cannot change what a passage says; the value is its stable name."""

    WHITESPACE = "whitespace"
    """Any run of spaces, tabs, line breaks, no-break or thin spaces is one space: layout,
    not wording."""
    SPACE_AROUND_PUNCTUATION = "space_around_punctuation"
    """A space before `. , ; : ! ? ) ] } %` or after `( [ {` (French typography, PDF
    extraction) is not a difference: no word is added or lost."""
    LINE_END_HYPHENATION = "line_end_hyphenation"
    """`algo-⏎rithm` reads `algorithm`: a hyphen at a line's end followed by a lower-case
    letter on the next line is the typesetter's, not the author's."""
    INVISIBLE_CHARACTERS = "invisible_characters"
    """Soft hyphens, zero-width spaces and joiners, word joiners, byte-order marks: they
    are never seen on the page."""
    LIGATURES = "ligatures"
    """`ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ` are the letters they join."""
    TYPOGRAPHIC_QUOTES = "typographic_quotes"
    """Curly, low and angle quotes, primes and backticks are the straight `'` and `"`."""
    DASHES = "dashes"
    """Hyphen, non-breaking hyphen, figure, en and em dashes and the minus sign are `-`;
    the ellipsis character is `...`."""
    UNICODE_NORMALISATION = "unicode_normalisation"
    """NFKC: precomposed and decomposed accents, full-width and compatibility forms are
    the same text. Superscripts and subscripts are kept apart (NFKC would make `10⁶`
    read `106` and `m²` read `m2`)."""
    CITATION_MARKERS = "citation_markers"
    """Numeric reference markers, `[12]`, `[3, 5–7]`, and superscript reference numbers
    after a word of four letters or more or after punctuation (`mortality²³`, `trial.⁴`),
    point to the bibliography and say nothing themselves. A marker the request carries
    must still be in the passage."""
    LEADING_CASE = "leading_case"
    """The request's first letter may be upper or lower case: a passage quoted from
    mid-sentence is capitalised, a sentence quoted after "that" is not. Case anywhere
    else is kept (`US` is not `us`, `WHO` is not `who`)."""
    TRAILING_PUNCTUATION = "trailing_punctuation"
    """A `.`, `,`, `;` or `:` ending the request may be the quoter's: the passage may
    go on where the request stops."""


TOLERANCES: tuple[Tolerance, ...] = tuple(Tolerance)
"""Every tolerated difference, in the order the documentation lists them."""

_SINGLE_QUOTES = "‘’‚‛′`´‹›"
_DOUBLE_QUOTES = "“”„‟″«»"
_DASH_CHARACTERS = "‐‑‒–—―−⁃"
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")
_CLOSERS = frozenset(".,;:!?)]}%»")
_OPENERS = frozenset("([{«")
_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_PLAIN_RUN = re.compile(r"[A-Za-z0-9]+")
_BRACKET_CITATION = re.compile(r"\[\d{1,4}(?:\s*[,;–—-]\s*\d{1,4})*\]")
_SUPERSCRIPT_CITATION = re.compile(
    rf"[{_SUPERSCRIPT_DIGITS}]+(?:[,⁻–-][{_SUPERSCRIPT_DIGITS}]+)*")
_WORD_BEFORE_SUPERSCRIPT = re.compile(r"[^\W\d_]{4,}$")


def citation_markers(text: str) -> list[str]:
    """The numeric reference markers in `text`, digits only (`[3, 5]` -> `3,5`)."""
    found = [re.sub(r"\D+", ",", m.group(0)).strip(",")
             for m in _BRACKET_CITATION.finditer(text)]
    for m in _SUPERSCRIPT_CITATION.finditer(text):
        if _is_superscript_citation(text, m.start()):
            digits = m.group(0).translate(_FROM_SUPERSCRIPT)
            found.append(re.sub(r"\D+", ",", digits).strip(","))
    return found


_FROM_SUPERSCRIPT = str.maketrans(_SUPERSCRIPT_DIGITS, "0123456789")


def _is_superscript_citation(text: str, at: int) -> bool:
    if at == 0:
        return False
    before = text[at - 1]
    if before in ".,;:)]":
        return True
    return bool(_WORD_BEFORE_SUPERSCRIPT.search(text[max(0, at - 40):at]))


@attrs.frozen
class CanonicalText:
    """`text` in canonical form: `origin[i]` is the index in the original of character
    `i`, and `applied[i]` the tolerances (as a bit set over `TOLERANCES`) used to produce
    it or to drop what stood just before it."""

    text: str
    origin: array[int]
    applied: array[int]
    source: str
    """The original text (the same object, not a copy)."""

    def tolerances_between(self, start: int, end: int) -> tuple[Tolerance, ...]:
        """The tolerances used inside `[start, end)` of the canonical text."""
        bits = 0
        for flags in self.applied[start:end]:
            bits |= flags
        return tuple(t for i, t in enumerate(TOLERANCES) if bits >> i & 1)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that canonical `[start, end)` came from: to the
        end of its last character's combining marks (`e` + U+0301 is one `é`)."""
        last = self.origin[end - 1] + 1
        while last < len(self.source) and _continues_a_cluster(self.source[last]):
            last += 1
        return self.origin[start], last


_BIT = {t: 1 << i for i, t in enumerate(TOLERANCES)}


@functools.lru_cache(maxsize=4)
def canonical_form(text: str, *, join_line_end_hyphens: bool = True) -> CanonicalText:
    """`text` with every tolerated difference erased (case kept); near-linear. The last
    few are kept: a claim check asks about the same document many times.
    `join_line_end_hyphens=False` keeps a hyphen before a line break: a request's line
    break after a hyphen may be a suspended compound's (`age-⏎and sex-matched`)."""
    out: list[str] = []
    origin: array[int] = array("q")
    applied: array[int] = array("H")
    pending = 0  # tolerances used on dropped characters, credited to the next one kept
    length = len(text)
    i = 0

    def emit(piece: str, at: int, flags: int) -> None:
        nonlocal pending
        for char in piece:
            out.append(char)
            origin.append(at)
            applied.append(flags | pending)
            pending = 0

    while i < length:
        char = text[i]
        if char in _PLAIN:
            # Most of a text is runs of ASCII letters and digits, kept as they are: taken
            # whole, they cost one step instead of one per character.
            found = _PLAIN_RUN.match(text, i)
            assert found is not None
            end = found.end()
            if end < length and _continues_a_cluster(text[end]):
                end -= 1  # the last letter goes with the accent that follows it
            if end > i:
                out.append(text[i:end])
                origin.extend(range(i, end))
                applied.extend([0] * (end - i))
                applied[len(applied) - (end - i)] = pending
                pending = 0
                i = end
                continue
        if char in _INVISIBLE:
            pending |= _BIT[Tolerance.INVISIBLE_CHARACTERS]
            i += 1
            continue
        if char == "[" and (found := _BRACKET_CITATION.match(text, i)):
            pending |= _BIT[Tolerance.CITATION_MARKERS]
            i = found.end()
            continue
        if char in _SUPERSCRIPT_DIGITS and _is_superscript_citation(text, i):
            found = _SUPERSCRIPT_CITATION.match(text, i)
            assert found is not None
            pending |= _BIT[Tolerance.CITATION_MARKERS]
            i = found.end()
            continue
        if join_line_end_hyphens and char in "-\u2010" and i and text[i - 1].isalpha():
            after = _line_end_continuation(text, i + 1)
            if after is not None:
                pending |= _BIT[Tolerance.LINE_END_HYPHENATION]
                i = after
                continue
        if char.isspace():
            if out and out[-1] != " " and text[origin[-1]] not in _OPENERS:
                emit(" ", i, 0 if char == " " else _BIT[Tolerance.WHITESPACE])
            elif out:
                pending |= _BIT[Tolerance.WHITESPACE]
            i += 1
            continue
        if char in _CLOSERS and out and out[-1] == " ":
            out.pop()
            origin.pop()
            pending |= applied.pop() | _BIT[Tolerance.SPACE_AROUND_PUNCTUATION]
        if char in _SINGLE_QUOTES:
            emit("'", i, _BIT[Tolerance.TYPOGRAPHIC_QUOTES])
        elif char in _DOUBLE_QUOTES:
            emit('"', i, _BIT[Tolerance.TYPOGRAPHIC_QUOTES])
        elif char in _DASH_CHARACTERS:
            emit("-", i, _BIT[Tolerance.DASHES])
        elif char == "…":
            emit("...", i, _BIT[Tolerance.DASHES])
        elif char in LIGATURES:
            emit(LIGATURES[char], i, _BIT[Tolerance.LIGATURES])
        elif char.isascii() and not (i + 1 < length and _continues_a_cluster(text[i + 1])):
            emit(char, i, 0)
        else:
            # A character with the combining marks that follow it, normalised together.
            j = i + 1
            while j < length and _continues_a_cluster(text[j]):
                j += 1
            cluster = text[i:j]
            normal = cluster if _keeps_its_form(char) else unicodedata.normalize(
                "NFKC", cluster)
            emit(normal, i, 0 if normal == cluster else _BIT[Tolerance.UNICODE_NORMALISATION])
            i = j
            continue
        i += 1
    while out and out[-1] == " ":
        out.pop()
        origin.pop()
        applied.pop()
    return CanonicalText("".join(out), origin, applied, text)


def _continues_a_cluster(char: str) -> bool:
    """A combining mark, or a Hangul vowel or final consonant jamo (combining class 0,
    yet composed with the jamo before it: NFD Korean is jamo)."""
    return bool(unicodedata.combining(char)) or "\u1160" <= char <= "\u11ff" or \
        "\ud7b0" <= char <= "\ud7ff"


def _keeps_its_form(char: str) -> bool:
    """Superscripts and subscripts: NFKC would read them as plain digits and letters."""
    return unicodedata.decomposition(char).startswith(("<super>", "<sub>"))


def _line_end_continuation(text: str, at: int) -> int | None:
    """Where the word continues after a hyphen ending a line, or None when the hyphen
    does not end a line or a capital follows (a compound's own hyphen, `Franco-⏎German`)."""
    length = len(text)
    while at < length and text[at] in " \t":
        at += 1
    if at >= length or text[at] not in "\n\r":
        return None
    while at < length and text[at] in " \t\r\n":
        at += 1
    return at if at < length and text[at].islower() else None
