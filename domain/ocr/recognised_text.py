"""Recognised words of scanned pages, and the document they make.

An OCR engine reports words with boxes and confidences, grouped into blocks, paragraphs
and lines. Each paragraph becomes a paragraph block knowing its page, the box around
its words and each word's confidence; each page's mean confidence (and the layout the
engine was told to find, when it was not the automatic one) goes into the document's
notes, and pages below `LOW_CONFIDENCE` are flagged, so a caller can tell a clean scan
from a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from ..document.document import BlockDraft, BlockKind, Document
from ..document.markdown_rendering import assemble_document
from ..document.metadata import DocumentMetadata
from ..errors import ErrorKind, SheafError

Box = tuple[float, float, float, float]
LOW_CONFIDENCE = 60.0
"""Mean word confidence below which a page's text is flagged as unreliable: clean print
reads at 85-95, a page under 60 has one word in three or more misread."""


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
    layout: str = "auto"
    """The page segmentation the words came from (`auto`, `single column`,
    `uniform block`, `sparse text`): the one that read the page best."""

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
            text, confidences = _paragraph_text(words)
            if text:
                drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=text, pages=(page.number,),
                                         bbox=_enclosing(w.box for w in words),
                                         word_confidences=confidences))
    return drafts


def confidence_notes(pages: Iterable[OcrPage]) -> list[str]:
    """`ocr_confidence page N: C (W words)` for every page read by OCR (with the layout
    when it was not the automatic one), then `ocr_low_confidence: pages ...` naming the
    pages whose mean is under `LOW_CONFIDENCE`."""
    notes = []
    low = []
    for page in pages:
        mean = page.confidence
        figure = f"{mean:.1f}" if mean is not None else "none"
        layout = "" if page.layout == "auto" else f", layout: {page.layout}"
        notes.append(f"ocr_confidence page {page.number}: {figure} "
                     f"({len(page.words)} words{layout})")
        if mean is not None and mean < LOW_CONFIDENCE:
            low.append(page.number)
    if low:
        notes.append(f"ocr_low_confidence: pages {', '.join(map(str, low))} (mean word "
                     f"confidence under {LOW_CONFIDENCE:g}: check the text against the image)")
    return notes


def looks_scattered(words: Sequence[OcrWord]) -> bool:
    """True when the automatic layout analysis cut the page into many blocks of a few
    words: a form, ballot, label or table of scattered words, whose reading order that
    analysis jumbles (a label's value read a column later, furniture between lines)."""
    sizes: dict[int, int] = {}
    for word in words:
        sizes[word.paragraph[0]] = sizes.get(word.paragraph[0], 0) + 1
    small = sum(1 for size in sizes.values() if size <= 3)
    return len(sizes) >= 3 and small * 2 >= len(sizes)


def best_reading(readings: Sequence[Sequence[OcrWord]]) -> int:
    """The index of the reading to keep: among those that read nearly as many words as
    the most complete one (90% of its words of a letter or digit read with a confidence
    of `LOW_CONFIDENCE` or more), the one with the highest mean confidence; the first on
    a tie. Fragments and misread furniture lower a reading's confidence, a layout that
    misses a column lowers its count."""
    counts = [sum(1 for w in words if w.confidence >= LOW_CONFIDENCE
                  and any(c.isalnum() for c in w.text)) for words in readings]
    most = max(counts, default=0)

    def mean(index: int) -> float:
        words = readings[index]
        return sum(w.confidence for w in words) / len(words) if words else 0.0

    eligible = [i for i, count in enumerate(counts) if count >= 0.9 * most]
    return max(eligible, key=lambda i: (mean(i), -i)) if eligible else 0


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


def _paragraph_text(words: Sequence[OcrWord]) -> tuple[str, tuple[float, ...]]:
    """The paragraph's text and one confidence per word of it (a word rejoined across a
    line end takes the lower of its two parts')."""
    text = ""
    confidences: list[float] = []
    previous_line: int | None = None
    for word in words:
        token = " ".join(word.text.split())
        if not token:
            continue
        if not text:
            text = token
            confidences += [word.confidence] * len(token.split())
        elif previous_line is not None and word.line != previous_line and text.endswith("-"):
            # A word broken at the line end: rejoined, and the hyphen dropped unless the
            # next part is capitalised (a compound such as North-East).
            text = (text[:-1] if token[:1].islower() else text) + token
            confidences[-1] = min(confidences[-1], word.confidence)
            confidences += [word.confidence] * (len(token.split()) - 1)
        else:
            text += " " + token
            confidences += [word.confidence] * len(token.split())
        previous_line = word.line
    return text, tuple(confidences)


def _enclosing(boxes: Iterable[Box]) -> Box:
    left, top, right, bottom = zip(*boxes, strict=True)
    return (min(left), min(top), max(right), max(bottom))
