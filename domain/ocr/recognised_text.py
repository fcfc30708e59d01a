"""Recognised words of scanned pages, and the document they make.

An OCR engine reports words with boxes and confidences, grouped into blocks, paragraphs
and lines. Each paragraph becomes a paragraph block knowing its page and the box around
its words; each page's mean confidence goes into the document's notes so a caller can
tell a clean scan from a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from ..document.document import BlockDraft, BlockKind, Document
from ..document.markdown_rendering import assemble_document
from ..document.metadata import DocumentMetadata
from ..errors import ErrorKind, SheafError

Box = tuple[float, float, float, float]


@attrs.frozen
class OcrWord:
    """One recognised word: its text, box (left, top, right, bottom in pixels of the page
    image) and the engine's confidence, 0-100."""

    text: str
    box: Box
    confidence: float
    paragraph: tuple[int, int]
    """(block, paragraph) numbers as the engine grouped the word."""
    line: int


@attrs.frozen
class OcrPage:
    """The words recognised on one page (1-based), in the engine's reading order."""

    number: int
    width: int
    height: int
    words: tuple[OcrWord, ...]

    @property
    def confidence(self) -> float | None:
        """The mean word confidence, or None when nothing was recognised."""
        if not self.words:
            return None
        return sum(w.confidence for w in self.words) / len(self.words)


def ocr_blocks(pages: Iterable[OcrPage]) -> list[BlockDraft]:
    """One paragraph block per paragraph the engine found, lines joined by spaces
    (hyphenated line ends joined into one word)."""
    drafts: list[BlockDraft] = []
    for page in pages:
        for words in _paragraphs(page.words):
            text = _paragraph_text(words)
            if text:
                drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=text, pages=(page.number,),
                                         bbox=_enclosing(w.box for w in words)))
    return drafts


def confidence_notes(pages: Iterable[OcrPage]) -> list[str]:
    """`ocr_confidence page N: C (W words)` for every page read by OCR."""
    notes = []
    for page in pages:
        mean = page.confidence
        figure = f"{mean:.1f}" if mean is not None else "none"
        notes.append(f"ocr_confidence page {page.number}: {figure} ({len(page.words)} words)")
    return notes


def ocr_document(pages: Sequence[OcrPage], *, title: str | None = None) -> Document:
    """A document from recognised pages; `no_text_layer` when OCR found no words either."""
    drafts = ocr_blocks(pages)
    if not drafts:
        raise SheafError(ErrorKind.NO_TEXT_LAYER, "OCR recognised no words on any page")
    return assemble_document(drafts, metadata=DocumentMetadata(title=title),
                             page_count=len(pages), notes=confidence_notes(pages))


def _paragraphs(words: Sequence[OcrWord]) -> list[list[OcrWord]]:
    groups: list[list[OcrWord]] = []
    for word in words:
        if groups and groups[-1][-1].paragraph == word.paragraph:
            groups[-1].append(word)
        else:
            groups.append([word])
    return groups


def _paragraph_text(words: Sequence[OcrWord]) -> str:
    text = ""
    previous_line: int | None = None
    for word in words:
        token = word.text.strip()
        if not token:
            continue
        if not text:
            text = token
        elif previous_line is not None and word.line != previous_line and text.endswith("-"):
            # A word broken at the line end: rejoined, and the hyphen dropped unless the
            # next part is capitalised (a compound such as North-East).
            text = (text[:-1] if token[:1].islower() else text) + token
        else:
            text += " " + token
        previous_line = word.line
    return text


def _enclosing(boxes: Iterable[Box]) -> Box:
    left, top, right, bottom = zip(*boxes, strict=True)
    return (min(left), min(top), max(right), max(bottom))
