"""A document's profile: counts and exact spans of its sentences, paragraphs and lines."""

from __future__ import annotations

import re

import attrs

from .sentences import sentence_spans

Span = tuple[int, int]
PROSE_KINDS = frozenset({"paragraph", "list", "quote", "caption", "footnote", "reference"})
# No "^": the patterns are matched at a line's offset with Pattern.match(text, pos).
_LIST_MARK = re.compile(r"[ \t]*(?:[-*+]|\d{1,4}[.)]|\[\w{1,6}\])[ \t]+")
_QUOTE_MARK = re.compile(r"[ \t]*>[ \t]?")


@attrs.frozen
class TextProfile:
    """Counts, and the character span of every sentence, paragraph and line."""

    characters: int
    words: int
    sentences: tuple[Span, ...]
    paragraphs: tuple[Span, ...]
    lines: tuple[Span, ...]

    @property
    def words_per_sentence(self) -> float:
        return self.words / len(self.sentences) if self.sentences else 0.0

    @property
    def sentences_per_paragraph(self) -> float:
        return len(self.sentences) / len(self.paragraphs) if self.paragraphs else 0.0

    def as_dict(self, text: str) -> dict[str, object]:
        return {
            "characters": self.characters, "words": self.words,
            "sentences": len(self.sentences), "paragraphs": len(self.paragraphs),
            "lines": len(self.lines),
            "words_per_sentence": round(self.words_per_sentence, 2),
            "sentences_per_paragraph": round(self.sentences_per_paragraph, 2),
            "first_sentence": text[slice(*self.sentences[0])] if self.sentences else None,
            "last_sentence": text[slice(*self.sentences[-1])] if self.sentences else None,
        }


def profile_text(text: str, blocks: list[tuple[str, int, int]]) -> TextProfile:
    """Profile canonical text from its blocks (kind, start, end). Sentences are found in
    prose blocks only, a list item or quote line at a time, without its Markdown marker;
    headings, tables and code are not sentences."""
    sentences: list[Span] = []
    paragraphs: list[Span] = []
    for kind, start, end in blocks:
        if kind not in PROSE_KINDS:
            continue
        paragraphs.append((start, end))
        if kind in ("list", "quote", "reference"):
            for line_start, line_end in _line_spans(text, start, end):
                marker = (_QUOTE_MARK if kind == "quote" else _LIST_MARK).match(
                    text, line_start, line_end)
                content_start = marker.end() if marker else line_start
                sentences.extend(sentence_spans(text, content_start, line_end))
        else:
            sentences.extend(sentence_spans(text, start, end))
    lines = tuple(span for span in _line_spans(text, 0, len(text))
                  if text[span[0]:span[1]].strip())
    return TextProfile(len(text), len(text.split()), tuple(sentences), tuple(paragraphs), lines)


def _line_spans(text: str, start: int, end: int) -> list[Span]:
    spans = []
    cursor = start
    while cursor <= end:
        newline = text.find("\n", cursor, end)
        stop = end if newline == -1 else newline
        spans.append((cursor, stop))
        if newline == -1:
            break
        cursor = newline + 1
    return spans
