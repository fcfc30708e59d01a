"""Whether a document says a passage: `verified` only for its exact words or words that
differ by the tolerances of `tolerances.Tolerance`; otherwise the closest passage and
what differs.

A verified passage must also not be cut from a sentence right before or right after a
negation or a restricting qualifier ("the drug reduced mortality" out of "the drug
reduced mortality only in mice"): the words are the document's, the claim is not.

Locating (`Mode.LOCATE`) re-anchors a paraphrase or an OCR-damaged passage: its answer is
never `verified`, and always lists what differs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import attrs

from ..analysis.word_tokens import is_unit_boundary, word_units
from ..worded_enum import WordedEnum
from .fuzzy_window import best_window
from .match_kinds import FUZZY_THRESHOLD
from .meaning_words import is_conjunction, is_negation, is_qualifier, limits_a_claim
from .tolerances import TOLERANCES, CanonicalText, Tolerance, canonical_form, citation_markers
from .word_alignment import Difference, DifferenceKind, aligned_span, differences


class Mode(WordedEnum):
    VERIFY = "verify"
    """Confirm the document says this: verified, or not verified with what differs."""
    LOCATE = "locate"
    """Find where the document says something like this: located, never verified."""


class Verdict(WordedEnum):
    VERIFIED = "verified"
    """The document's text is the request, up to the tolerated differences."""
    LOCATED = "located"
    """A passage like the request, found in locate mode; its differences are listed."""
    NOT_VERIFIED = "not_verified"
    """No passage is the request; the closest one and what differs are given."""
    NOT_FOUND = "not_found"
    """Nothing in the document is close to the request."""


@attrs.frozen
class PassageMatch:
    """A span of the document's own text, how it was matched and how similar it is."""

    start: int
    end: int
    match: str
    """`exact`, `tolerant` or `fuzzy`."""
    similarity: float
    differences: tuple[Difference, ...] = ()
    tolerated: tuple[Tolerance, ...] = ()


@attrs.frozen
class QuoteVerification:
    """The verdict on one request: the passages that are it (verified or located), or the
    closest passage and its differences."""

    verdict: Verdict
    matches: tuple[PassageMatch, ...] = ()
    closest: PassageMatch | None = None

    @property
    def verified(self) -> bool:
        return self.verdict is Verdict.VERIFIED


_TRAILING = ".,;:"


def verify_quote(text: str, request: str, *, mode: Mode = Mode.VERIFY,
                 find_all: bool = False, threshold: float = FUZZY_THRESHOLD
                 ) -> QuoteVerification:
    """The verdict on `request` against the document text `text` (see the module)."""
    request = request.strip()
    if not request:
        return QuoteVerification(Verdict.NOT_FOUND)
    document = canonical_form(text)
    asked = canonical_form(request)
    if not asked.text:
        return QuoteVerification(Verdict.NOT_FOUND)
    candidates = _equal_spans(text, request, document, asked, find_all)
    clean: list[PassageMatch] = []
    cut: PassageMatch | None = None
    for match in candidates:
        stop = (_inside_a_compound(text, match) or _sentence_goes_on(text, match)
                or _qualifier_cut(text, match))
        wrong_marker = _citation_difference(text, request, match)
        if stop is None and wrong_marker is None:
            clean.append(match)
        elif cut is None:
            found = stop or wrong_marker
            assert found is not None
            cut = attrs.evolve(match, differences=(found,), similarity=1.0)
    if clean:
        verdict = Verdict.VERIFIED if mode is Mode.VERIFY else Verdict.LOCATED
        return QuoteVerification(verdict, tuple(clean))
    if cut is not None:
        if mode is Mode.LOCATE:
            return QuoteVerification(Verdict.LOCATED, (cut,))
        return QuoteVerification(Verdict.NOT_VERIFIED, closest=cut)
    closest = _closest(text, request, document, asked)
    if closest is None:
        return QuoteVerification(Verdict.NOT_FOUND)
    if mode is Mode.LOCATE and closest.similarity >= threshold:
        return QuoteVerification(Verdict.LOCATED, (closest,))
    if mode is Mode.LOCATE:
        return QuoteVerification(Verdict.NOT_FOUND, closest=closest)
    return QuoteVerification(Verdict.NOT_VERIFIED, closest=closest)


def _equal_spans(text: str, request: str, document: CanonicalText, asked: CanonicalText,
                 find_all: bool) -> list[PassageMatch]:
    """The exact occurrences, else the canonical ones (on word boundaries), each with the
    tolerances it needed."""
    exact = _find(text, request, find_all, lambda _: True)
    if exact:
        return [PassageMatch(s, s + len(request), "exact", 1.0) for s in exact]
    found: list[PassageMatch] = []
    readings = [asked]
    kept = canonical_form(request, join_line_end_hyphens=False)
    if kept.text != asked.text:
        readings.append(kept)  # a hyphen before a line break may be the author's
    for reading in readings:
        found = _canonical_spans(document, reading, find_all)
        if found:
            return found
    return _ending_at_a_line_end_hyphen(document, asked, find_all)


_HYPHENATED = 1 << TOLERANCES.index(Tolerance.LINE_END_HYPHENATION)


def _ending_at_a_line_end_hyphen(document: CanonicalText, asked: CanonicalText,
                                 find_all: bool) -> list[PassageMatch]:
    """A request ending where the document breaks a word at a line's end ("... with the
    man-" of "man-⏎ual"), as its sentence and line numbers cut it: the document's text up
    to and with that hyphen."""
    needle = asked.text
    if len(needle) < 2 or needle[-1] != "-" or not needle[-2].isalpha():
        return []
    stem = needle[:-1]
    found: list[PassageMatch] = []
    for start in _find(document.text, stem, find_all, lambda at: is_unit_boundary(
            document.text, at)):
        end = start + len(stem)
        if end >= len(document.text) or not document.applied[end] & _HYPHENATED:
            continue
        first, _ = document.original_span(start, end)
        hyphen = document.source.find("-", document.origin[end - 1], document.origin[end])
        if hyphen == -1:
            continue
        used = set(document.tolerances_between(start, end)) | set(
            asked.tolerances_between(0, len(needle))) | {Tolerance.LINE_END_HYPHENATION}
        found.append(PassageMatch(first, hyphen + 1, "tolerant", 1.0, (),
                                  tuple(t for t in Tolerance if t in used)))
        if not find_all:
            break
    return found


def _canonical_spans(document: CanonicalText, asked: CanonicalText, find_all: bool
                     ) -> list[PassageMatch]:
    needle = asked.text
    stripped = needle.rstrip(_TRAILING).rstrip()
    found: list[PassageMatch] = []
    for wanted, trailing in ((needle, False), (stripped, stripped != needle)):
        if not wanted:
            continue
        for variant, leading in ((wanted, False),
                                 (wanted[0].swapcase() + wanted[1:], True)):
            if leading and variant == wanted:
                continue
            for start in _find(document.text, variant, find_all, _on_boundaries(
                    document.text, len(variant))):
                end = start + len(variant)
                used = set(document.tolerances_between(start, end))
                used.update(asked.tolerances_between(0, len(asked.text)))
                if leading:
                    used.add(Tolerance.LEADING_CASE)
                if trailing:
                    used.add(Tolerance.TRAILING_PUNCTUATION)
                original = document.original_span(start, end)
                found.append(PassageMatch(*original, "tolerant", 1.0, (), tuple(
                    t for t in Tolerance if t in used)))
                if not find_all:
                    return found
        if found:
            return found
    return found


def _on_boundaries(haystack: str, size: int) -> Callable[[int], bool]:
    return lambda at: is_unit_boundary(haystack, at) and is_unit_boundary(haystack, at + size)


def _find(haystack: str, needle: str, find_all: bool, accept: Callable[[int], bool]
          ) -> list[int]:
    found: list[int] = []
    at = haystack.find(needle)
    while at != -1:
        if accept(at):
            found.append(at)
            if not find_all:
                break
        at = haystack.find(needle, at + 1)
    return found


_SENTENCE_STOPS = frozenset(".!?;…。！？")
_BLOCK_BREAK = re.compile(r"\n\s*\n|\n\s*(?:[-*+>#|]|\d+[.)])")
"""A blank line, or a line starting a list item, quote, heading or table row: another
block, where the sentence cannot go on."""
_CLOSING = "\"'”’»)]} "


_COMPOUND_HYPHENS = "-‐‑"


def _inside_a_compound(text: str, match: PassageMatch) -> Difference | None:
    """A match that stops at a hyphen inside a word ("well" of "well-known") or starts
    after one: the compound is the word."""
    start, end = match.start, match.end
    if end + 1 < len(text) and text[end] in _COMPOUND_HYPHENS and text[end + 1].isalpha() \
            and text[end - 1:end].isalnum():
        word = word_units(text[end + 1:end + 40])
        stop = end + 1 + word[0][1] if word else end + 1
        return Difference(DifferenceKind.WORDS_MISSING, "", text[end:stop], end, stop)
    if start > 1 and text[start - 1] in _COMPOUND_HYPHENS and text[start - 2].isalnum() \
            and text[start:start + 1].isalnum():
        word = word_units(text[max(0, start - 41):start - 1])
        begun = max(0, start - 41) + word[-1][0] if word else start - 1
        return Difference(DifferenceKind.WORDS_MISSING, "", text[begun:start], begun, start)
    return None


def _sentence_goes_on(text: str, match: PassageMatch) -> Difference | None:
    """Where the request's closing stop was tolerated (`TRAILING_PUNCTUATION`), the
    document's clause must end there too: a mark, a line break or a conjunction comes
    next. "Divergence was." is not what "divergence was lower or not significantly
    different" says."""
    if Tolerance.TRAILING_PUNCTUATION not in match.tolerated:
        return None
    if not text[match.end:match.end + 1].isspace():
        return None  # a mark follows, or the text ends
    following = text[match.end:].lstrip(" \t")[:1]
    if not following or following in _MARKS or following in "-–—\n":
        return None
    after = _neighbour_word(text, match.end, forward=True)
    if after is None or is_conjunction(after[0]):
        return None
    word, start, end = after
    return Difference(DifferenceKind.WORDS_MISSING, "", word, start, end)


def _qualifier_cut(text: str, match: PassageMatch) -> Difference | None:
    """A negation, qualifier or condition just outside the match, in the same sentence:
    the next word, or the one after a conjunction ("significant, but only in women");
    or the word just before it ("no patients died")."""
    ends_a_sentence = text[match.start:match.end].rstrip(_CLOSING)[-1:] in _SENTENCE_STOPS
    after = None if ends_a_sentence else _neighbour_word(text, match.end, forward=True)
    if after is not None and is_conjunction(after[0]):
        after = _neighbour_word(text, after[2], forward=True)
    if after is not None and limits_a_claim(after[0]):
        word, start, end = after
        return Difference(DifferenceKind.QUALIFIER_CUT, "", word, start, end)
    before = _neighbour_word(text, match.start, forward=False)
    if before is not None and (is_negation(before[0]) or is_qualifier(before[0])):
        word, start, end = before
        return Difference(DifferenceKind.QUALIFIER_CUT, "", word, start, end)
    return None


def _neighbour_word(text: str, at: int, *, forward: bool) -> tuple[str, int, int] | None:
    """The word right after (or before) `at`, unless a sentence stop or a blank line
    comes first."""
    window = text[at:at + 80] if forward else text[max(0, at - 80):at]
    offset = at if forward else max(0, at - 80)
    units = word_units(window)
    if not units:
        return None
    start, end = units[0] if forward else units[-1]
    between = window[:start] if forward else window[end:]
    if any(c in _SENTENCE_STOPS for c in between) or _BLOCK_BREAK.search(between):
        return None
    if forward and start == 0 and at > 0 and not is_unit_boundary(text, at):
        return None
    if forward and window[:1] in "'’" and at > 0 and text[at - 1].isalpha() and start == 1:
        # Cut inside a contraction ("We didn" of "We didn't"): the word is the whole one.
        before = word_units(text[max(0, at - 40):at])
        if before:
            begun = max(0, at - 40) + before[-1][0]
            return text[begun:offset + end], begun, offset + end
    # A contraction or a compound is one word: "didn't", "non-synonymous" (whose "non"
    # negates nothing in the claim around it).
    while True:
        joined = [u for u in units if u[0] == end + 1 and window[end:end + 1] in "'-‐’"]
        if not joined or not window[end:end + 1]:
            break
        end = joined[0][1]
    if not forward:
        while start > 1 and window[start - 1] in "-‐" and window[start - 2].isalnum():
            earlier = [u for u in units if u[1] == start - 1]
            if not earlier:
                break
            start = earlier[0][0]
    return window[start:end], offset + start, offset + end


def _citation_difference(text: str, request: str, match: PassageMatch) -> Difference | None:
    """A reference marker of the request that the passage does not have."""
    wanted = Counter(citation_markers(request))
    if not wanted:
        return None
    present = Counter(citation_markers(text[match.start:match.end]))
    missing = wanted - present
    if not missing:
        return None
    return Difference(DifferenceKind.CITATION_CHANGED, ", ".join(missing.elements()), "",
                      match.start, match.start)


def _closest(text: str, request: str, document: CanonicalText, asked: CanonicalText
             ) -> PassageMatch | None:
    """The passage most like the request, with the word-level differences."""
    window = best_window(_lowered(document.text), _lowered(asked.text))
    if window is None:
        return None
    # The window trims words at its ends that lengthen it more than they match ("in
    # the group" for "in the treated group"); the differences are read over the
    # sentence around it, from the first to the last word the request shares.
    first, last, similarity = window.start, window.end, window.score
    widened = aligned_span(asked.text, document.text, *_sentence_around(
        document.text, window.start, window.end, len(asked.text)))
    if widened is not None:
        # Its similarity counts whole words; the window's also counts the letters
        # misspelled words share ("algoritm"): the higher of the two is reported.
        first, last, similarity = widened[0], widened[1], max(widened[2], window.score)
    # It starts and ends on words; the marks the request has at either end (a closing
    # stop, an opening quote) are looked for next to it.
    first, last = _with_marks(document.text, first, last, asked.text)
    start, end = document.original_span(first, last)
    found = tuple(d for d in differences(asked, request, document, text, first, last)
                  if not _quoters_stop(d, request))
    if not found:
        # The same words, not found as one string: only the spacing between them
        # differs ("a - b" for "a-b"), which no tolerance covers.
        found = (Difference(DifferenceKind.SPACING_CHANGED, request, text[start:end],
                            start, end),)
    return PassageMatch(start, end, "fuzzy", round(min(1.0, similarity), 3), found)


def _sentence_around(canonical: str, start: int, end: int, size: int) -> tuple[int, int]:
    """`[start, end)` widened to the sentence stops (or line breaks) around it, by at
    most the request's length each side; a bound that falls inside a word moves out to
    the word's edge, so no half word is read as a word of the passage."""
    left = max(canonical.rfind(stop, max(0, start - size), start) for stop in ".!?;\n")
    if left == -1:
        left = max(0, start - size)
        while not is_unit_boundary(canonical, left):
            left -= 1
    else:
        left += 1
    stops = [canonical.find(stop, end, end + size) for stop in ".!?;\n"]
    right = min((s for s in stops if s != -1), default=min(len(canonical), end + size))
    while not is_unit_boundary(canonical, right):
        right += 1
    return left, right


def _with_marks(canonical: str, start: int, end: int, asked: str) -> tuple[int, int]:
    """`[start, end)` widened over the punctuation marks next to it, as many as the
    request has at that end."""
    def marks(piece: str) -> int:
        return len(piece) - len(piece.lstrip(_MARKS))

    for _ in range(marks(asked[::-1])):
        if end < len(canonical) and canonical[end] in _MARKS:
            end += 1
    for _ in range(marks(asked)):
        if start > 0 and canonical[start - 1] in _MARKS:
            start -= 1
    return start, end


_MARKS = ".,;:!?)]}\"'(["


def _quoters_stop(difference: Difference, request: str) -> bool:
    """The request's own closing `.`, `,`, `;` or `:` where the passage goes on."""
    return (difference.kind is DifferenceKind.PUNCTUATION_CHANGED and not difference.document
            and difference.request in tuple(_TRAILING)
            and request.rstrip().endswith(difference.request))


def _lowered(text: str) -> str:
    """Lower case character by character, so offsets stay those of `text`."""
    whole = text.lower()
    # Lowering never shortens a character, so an unchanged length means every character
    # became one; only capital sigma depends on its neighbours (a final `ς`) when the
    # string is lowered whole. The per-character loop costs ~1 s on a 1 MB document.
    if len(whole) == len(text) and "\u03a3" not in text:
        return whole
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)
