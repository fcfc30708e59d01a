"""What differs between a request and a passage: a word-level alignment of the two,
each difference classified by what it does to the claim.

Both sides are compared in canonical form (`tolerances.canonical_form`), so a tolerated
difference never shows up here; what does show up is worded with each side's own
characters and placed by the passage's offsets in the document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

import attrs

from ..analysis.word_tokens import word_units
from ..worded_enum import WordedEnum
from .meaning_words import is_negation, is_number, is_qualifier, is_unit
from .tolerances import CanonicalText


class DifferenceKind(WordedEnum):
    """How a request departs from a passage; the value is the stable name."""

    NUMBER_CHANGED = "number_changed"
    NEGATION_ADDED = "negation_added"
    NEGATION_REMOVED = "negation_removed"
    UNIT_CHANGED = "unit_changed"
    ORDER_CHANGED = "order_changed"
    QUALIFIER_DROPPED = "qualifier_dropped"
    """A word that narrowed the claim ("only", "at most", "except") is missing."""
    QUALIFIER_CUT = "qualifier_cut"
    """The request matches the passage's words but stops right before, or starts right
    after, a negation or a qualifier that changes what they say."""
    WORD_REPLACED = "word_replaced"
    CASE_CHANGED = "case_changed"
    PUNCTUATION_CHANGED = "punctuation_changed"
    SPACING_CHANGED = "spacing_changed"
    """The same words and marks, spaced differently where no tolerance allows it."""
    WORDS_MISSING = "words_missing"
    """Words of the passage the request leaves out."""
    WORDS_EXTRA = "words_extra"
    """Words of the request the passage does not have."""
    CITATION_CHANGED = "citation_changed"
    """A reference marker in the request that the passage does not carry."""


@attrs.frozen
class Difference:
    """One difference: the request's words, the document's words (either may be empty)
    and where the document's stand (`start == end` where the request adds words)."""

    kind: DifferenceKind
    request: str
    document: str
    start: int
    end: int

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind.value, "request": self.request, "document": self.document,
                "start": self.start, "end": self.end}


@attrs.frozen
class _Token:
    text: str
    start: int  # in the canonical text
    end: int


def tokens(canonical: str) -> list[_Token]:
    """Words (with inner apostrophes: `didn't`), numbers (`1.5`, `12,000`) and single
    punctuation marks, in order."""
    found: list[_Token] = []
    cursor = 0
    for start, end in word_units(canonical):
        for index in range(cursor, start):
            if not canonical[index].isspace():
                found.append(_Token(canonical[index], index, index + 1))
        previous = found[-1] if found else None
        joined = previous is not None and len(found) >= 2 and _joins(canonical, found, start)
        if joined and previous is not None:
            before = found[-2]
            found[-2:] = [_Token(canonical[before.start:end], before.start, end)]
        else:
            found.append(_Token(canonical[start:end], start, end))
        cursor = end
    for index in range(cursor, len(canonical)):
        if not canonical[index].isspace():
            found.append(_Token(canonical[index], index, index + 1))
    return found


def _joins(canonical: str, found: list[_Token], start: int) -> bool:
    """Whether the unit at `start` continues the token before the mark just found: a
    contraction (`didn't`, `l'eau`), a decimal or grouped number (`1.5`, `12,000`) or a
    degree sign with its scale (`°C`)."""
    mark, before = found[-1], found[-2]
    if mark.end != start or before.end != mark.start or len(mark.text) != 1:
        return False
    if mark.text == "'":
        return before.text[-1:].isalpha() and canonical[start:start + 1].isalpha()
    if mark.text in ".,":
        return before.text[-1:].isdigit() and canonical[start:start + 1].isdigit()
    return False


def aligned_span(request: str, canonical: str, start: int, end: int
                 ) -> tuple[int, int, float] | None:
    """Within canonical `[start, end)`, the span from the first to the last word the
    request shares with it in order, and their similarity (2M over the letters of both,
    M the letters of the shared words); None when no word is shared."""
    asked = tokens(request)
    shown = tokens(canonical[start:end])
    asked_words, shown_words = _compared(asked, shown)
    blocks = [b for b in SequenceMatcher(None, asked_words, shown_words,
                                         autojunk=False).get_matching_blocks() if b.size]
    if not blocks:
        return None
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size - 1
    # Words the request has before its first shared word (or after its last) stand for
    # as many of the passage's there, if it has them: "at noon" against "at night" shows
    # "noon" replacing "night", not "noon" added.
    before = blocks[0].a
    after = len(asked_words) - (blocks[-1].a + blocks[-1].size)
    first -= min(before, first)
    last += min(after, len(shown_words) - 1 - last)
    shared = sum(_letters(w) for b in blocks for w in shown_words[b.b:b.b + b.size])
    letters = sum(map(_letters, asked_words)) + sum(map(_letters, shown_words[first:last + 1]))
    return (start + shown[first].start, start + shown[last].end,
            2 * shared / letters if letters else 0.0)


def _letters(word: str) -> int:
    """Letters and digits: what similarity counts (spaces and marks are not)."""
    return sum(c.isalnum() for c in word)


def _compared(asked: list[_Token], shown: list[_Token]) -> tuple[list[str], list[str]]:
    """The words compared: the request's first letter in the passage's case
    (`LEADING_CASE`)."""
    asked_words, shown_words = [t.text for t in asked], [t.text for t in shown]
    if asked_words:
        first = asked_words[0]
        other = first[:1].swapcase() + first[1:]
        if first not in shown_words and other in shown_words:
            asked_words[0] = other
    return asked_words, shown_words


def differences(request: CanonicalText, request_text: str, passage: CanonicalText,
                passage_text: str, passage_start: int, passage_end: int
                ) -> tuple[Difference, ...]:
    """Every difference between the whole request and `passage` (canonical form of the
    document's text) between canonical offsets `passage_start` and `passage_end`."""
    asked = tokens(request.text)
    shown = [_Token(t.text, t.start + passage_start, t.end + passage_start)
             for t in tokens(passage.text[passage_start:passage_end])]
    asked_words, shown_words = _compared(asked, shown)
    # Aligned without regard to case, so a shouted request still lines up word by word;
    # a case difference is then a block of its own (`case_changed`).
    matcher = SequenceMatcher(None, [w.lower() for w in asked_words],
                              [w.lower() for w in shown_words], autojunk=False)
    # The matcher's tags read from the request's side; here they say what the request
    # does to the passage: replace its words, add some ("extra"), leave some out.
    named = {"replace": "replace", "delete": "extra", "insert": "missing"}
    blocks: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            blocks.append((named[tag], i1, i2, j1, j2))
            continue
        blocks += _case_blocks(asked_words, shown_words, i1, j1, i2 - i1)
    moved = _moved(blocks, asked, shown)
    found: list[Difference] = []
    for named_tag, i1, i2, j1, j2 in blocks:
        ask, show = asked[i1:i2], shown[j1:j2]
        kind = DifferenceKind.ORDER_CHANGED if (i1, j1) in moved else _kind(
            named_tag, ask, show, shown[j1 - 1] if j1 else None)
        found.append(_difference(kind, ask, show, request, request_text, passage,
                                 passage_text, shown, j1))
    return tuple(found)


def _case_blocks(asked: list[str], shown: list[str], i: int, j: int, size: int
                 ) -> list[tuple[str, int, int, int, int]]:
    """Runs of words equal but for their case, as replace blocks."""
    found: list[tuple[str, int, int, int, int]] = []
    for offset in range(size):
        if asked[i + offset] == shown[j + offset]:
            continue
        if found and found[-1][2] == i + offset:
            tag, a1, _, b1, _ = found[-1]
            found[-1] = (tag, a1, i + offset + 1, b1, j + offset + 1)
        else:
            found.append(("replace", i + offset, i + offset + 1, j + offset, j + offset + 1))
    return found


def _moved(blocks: Sequence[tuple[str, int, int, int, int]], asked: list[_Token],
           shown: list[_Token]) -> set[tuple[int, int]]:
    """The blocks whose words the other side has elsewhere, in another order: a block's
    request words are another block's document words ("in autumn and in spring")."""
    moved: set[tuple[int, int]] = set()
    asks = [(b[1], b[3], Counter(t.text for t in asked[b[1]:b[2]])) for b in blocks]
    shows = [(b[1], b[3], Counter(t.text for t in shown[b[3]:b[4]])) for b in blocks]
    for (i, j, ask), (tag, *_) in zip(asks, blocks, strict=True):
        if tag == "replace" and ask == shows[asks.index((i, j, ask))][2] and len(ask) > 1:
            moved.add((i, j))
    for i, j, ask in asks:
        for other_i, other_j, show in shows:
            if ask and ask == show and (i, j) != (other_i, other_j):
                moved.update({(i, j), (other_i, other_j)})
    return moved


def _kind(tag: str, ask: list[_Token], show: list[_Token], before: _Token | None
          ) -> DifferenceKind:
    ask_words, show_words = [t.text for t in ask], [t.text for t in show]
    if tag == "replace" and [w.lower() for w in ask_words] == [w.lower() for w in show_words]:
        return DifferenceKind.CASE_CHANGED
    ask_negations = [w for w in ask_words if is_negation(w)]
    show_negations = [w for w in show_words if is_negation(w)]
    if len(ask_negations) > len(show_negations):
        return DifferenceKind.NEGATION_ADDED
    if len(ask_negations) < len(show_negations):
        return DifferenceKind.NEGATION_REMOVED
    if any(map(is_number, ask_words)) or any(map(is_number, show_words)):
        return DifferenceKind.NUMBER_CHANGED
    if tag == "replace":
        after_number = before is not None and is_number(before.text)
        if after_number and any(map(is_unit, ask_words)) and any(map(is_unit, show_words)):
            return DifferenceKind.UNIT_CHANGED
        if all(not _is_word(w) for w in ask_words + show_words):
            return DifferenceKind.PUNCTUATION_CHANGED
        return DifferenceKind.WORD_REPLACED
    words = show_words if tag == "missing" else ask_words
    if all(not _is_word(w) for w in words):
        return DifferenceKind.PUNCTUATION_CHANGED
    if tag == "missing" and any(map(is_qualifier, words)):
        return DifferenceKind.QUALIFIER_DROPPED
    return DifferenceKind.WORDS_MISSING if tag == "missing" else DifferenceKind.WORDS_EXTRA


def _is_word(token: str) -> bool:
    return any(c.isalnum() for c in token) or is_unit(token)


def _difference(kind: DifferenceKind, ask: list[_Token], show: list[_Token],
                request: CanonicalText, request_text: str, passage: CanonicalText,
                passage_text: str, shown: list[_Token], j1: int) -> Difference:
    asked = ""
    if ask:
        a, b = request.original_span(ask[0].start, ask[-1].end)
        asked = request_text[a:b]
    if show:
        start, end = passage.original_span(show[0].start, show[-1].end)
        return Difference(kind, asked, passage_text[start:end], start, end)
    # Words the request adds: placed where the passage's next word starts (or its end).
    if j1 < len(shown):
        at = passage.origin[shown[j1].start]
    else:
        at = passage.original_span(shown[-1].start, shown[-1].end)[1] if shown else 0
    return Difference(kind, asked, "", at, at)
