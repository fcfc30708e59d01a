"""Case-insensitive patterns matched on ASCII text as a case-sensitive twin over the text
lowered once.

The class, id and chrome-word rules are `re.IGNORECASE` patterns run over every new class
token and short block of a page. With IGNORECASE, Python's regex engine folds each
character it compares and gives up its literal-prefix and first-character shortcuts: on
the dev pages' class tokens the same patterns run about three times faster case-sensitively
over the lowered token. For ASCII text the two agree exactly (same match, same span) when
the pattern's own letters are lowercase; other text, and patterns that do not qualify, go
through the pattern as written. Only the case of a match's text differs: it is read from
the lowered text.
"""

from __future__ import annotations

import re
from typing import AnyStr


def lowered_twin(pattern: re.Pattern[AnyStr]) -> re.Pattern[AnyStr] | None:
    """`pattern` without IGNORECASE, when matching it on lowered ASCII text (`str.lower`
    of ASCII text, or `bytes.lower`, which folds only ASCII, as IGNORECASE on bytes does)
    finds exactly what `pattern` finds on the text; else None."""
    if not _foldable(pattern):
        return None
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


class FoldedPattern:
    """A compiled `re.IGNORECASE` pattern with `search`, `match` and `fullmatch` as
    `re.Pattern` has them (without positions)."""

    __slots__ = ("_twin", "flags", "original", "pattern")

    def __init__(self, original: re.Pattern[str]) -> None:
        self.original = original
        self.pattern = original.pattern
        self.flags = original.flags
        self._twin = lowered_twin(original)

    @property
    def twin(self) -> re.Pattern[str] | None:
        """The case-sensitive pattern for lowered ASCII text, or None when there is none:
        for callers that lower a text once and read it with several patterns."""
        return self._twin

    def search(self, text: str) -> re.Match[str] | None:
        if self._twin is not None and text.isascii():
            return self._twin.search(text.lower())
        return self.original.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        if self._twin is not None and text.isascii():
            return self._twin.match(text.lower())
        return self.original.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        if self._twin is not None and text.isascii():
            return self._twin.fullmatch(text.lower())
        return self.original.fullmatch(text)


_ESCAPE_OR_UPPER = re.compile(r"\\.|[A-Z]|\(\?[a-zA-Z-]", re.DOTALL)
"""Escapes, uppercase letters and inline flags in a pattern's source."""
_CODE_POINT_ESCAPES = frozenset("xuUN0123456789")


def _foldable(pattern: re.Pattern[AnyStr]) -> bool:
    """True when matching lowered ASCII text case-sensitively is the same as matching the
    text with IGNORECASE: the pattern is IGNORECASE throughout (no inline flags), names no
    uppercase ASCII letter but in a class of both cases (escapes such as \\S or \\W are
    not letters; code-point escapes are refused), and holds no other character that
    folds to or from an ASCII one (the Kelvin sign folds to "k", the long s to "s")."""
    if not pattern.flags & re.IGNORECASE or pattern.flags & re.LOCALE:
        return False
    source = pattern.pattern
    if isinstance(source, bytes):
        source = source.decode("latin-1")
    # A class of both cases matches the same letters of lowered text.
    source = source.replace("A-Za-z", "").replace("a-zA-Z", "")
    for found in _ESCAPE_OR_UPPER.finditer(source):
        token = found.group(0)
        if token.startswith("(?") and not token.startswith("(?P"):
            return False
        if not token.startswith(("\\", "(?")) or token[1:] in _CODE_POINT_ESCAPES:
            return False
    return not any(
        character.isascii()
        for c in source if not c.isascii()
        for character in c.lower() + c.upper() + c.casefold())
