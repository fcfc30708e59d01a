"""Whether extracted PDF text decodes to real writing or to glyph codes.

A font with no usable ToUnicode map and private glyph names gives its character codes,
not its letters: `!"#!"$ %&%' %!$&`, private-use code points, `(cid:12)` placeholders.
The text is judged per font and page from its character distribution alone, so the rule
holds for any script and any file (ADR-0013).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping

MIN_JUDGED_CHARACTERS = 24
"""Fewer visible characters than this say nothing either way (a label, a symbol)."""

_CID = re.compile(r"\(cid:\d+\)")
_FREQUENT_LATIN = frozenset("eaionsrt")
_LATIN_VOWELS = frozenset("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœ")


def implausibility(text: str) -> str | None:
    """None when `text` reads as writing; else why it does not, in a few words."""
    # Counted once, then judged over the distinct characters: a page's font has a few
    # dozen of them and thousands of glyphs.
    counts = Counter(_CID.sub("\ufffd", text) if "(cid:" in text else text)
    visible = {c: n for c, n in counts.items() if not c.isspace()}
    total = sum(visible.values())
    if total < MIN_JUDGED_CHARACTERS:
        return None
    unmapped = visible.get("\ufffd", 0)
    private = sum(n for c, n in visible.items() if _is_private_or_control(c))
    if (unmapped + private) / total > 0.3:
        return (f"{100 * (unmapped + private) // total}% unmapped, private-use or control "
                f"code points")
    letters = sum(n for c, n in visible.items() if c.isalpha())
    ascii_symbols = sum(n for c, n in visible.items() if c.isascii() and not c.isalnum())
    if ascii_symbols / total > 0.6 and letters / total < 0.1:
        # Real mathematics uses Unicode operators and letters; runs of ASCII punctuation
        # are character codes 33, 34, 35... of a font with a private encoding.
        return f"{100 * ascii_symbols // total}% ASCII punctuation, {letters} letters"
    latin: Counter[str] = Counter()
    for c, n in visible.items():
        if c.isalpha() and c.isascii():
            latin[c.lower()] += n
    latin_total = latin.total()
    if latin_total >= 4 * MIN_JUDGED_CHARACTERS and latin_total >= 0.6 * letters:
        vowels = sum(n for c, n in latin.items() if c in _LATIN_VOWELS) / latin_total
        # Every European language writes 30-50% vowels; letters shifted by a font's
        # private encoding land anywhere.
        if not 0.12 <= vowels <= 0.7:
            return f"{round(100 * vowels)}% vowels among Latin letters"
        # The five commonest letters of English, French, German, Spanish, Polish,
        # Turkish, Indonesian and code alike are mostly of these eight; letters that a
        # private encoding has substituted have some other five.
        common = [letter for letter, _ in latin.most_common(5)]
        if sum(1 for letter in common if letter in _FREQUENT_LATIN) < 3:
            return f"commonest letters {''.join(common)!r}, unlike any writing"
    return None


def is_unmapped_reason(reason: str) -> bool:
    """Reasons that are certain by themselves (no real text is private-use code points),
    as against distributions that formulas and number tables can also have."""
    return reason.endswith("control code points")


def _is_private_or_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in ("Co", "Cs", "Cn") or (category == "Cc" and char not in "\t\n\r")


def implausible_fonts(text_by_font: Mapping[str, str]) -> dict[str, str]:
    """The fonts whose text does not read as writing, each with why, in font-name order
    (the order is part of the output, so it must not follow dict insertion by chance)."""
    found: dict[str, str] = {}
    for font in sorted(text_by_font):
        reason = implausibility(text_by_font[font])
        if reason is not None:
            found[font] = reason
    return found
