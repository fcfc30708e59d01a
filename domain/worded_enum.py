"""Enumerations that print as the word they stand for."""

from __future__ import annotations

import enum


class WordedEnum(enum.Enum):
    """An enumeration of stable words (`new`, `document_not_found`, `exact`) that prints
    as its word: `print(result.status)` and f-strings show `new`, not `IngestStatus.NEW`,
    while comparisons stay between members (a member is not equal to its word)."""

    def __str__(self) -> str:
        return str(self.value)
