"""Recognised words into paragraph blocks with pages, boxes and confidences."""

from __future__ import annotations

import pytest

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ocr.recognised_text import OcrPage, OcrWord, ocr_document


def _word(text: str, x: int, line: int, paragraph: int = 1, confidence: float = 90.0
          ) -> OcrWord:
    return OcrWord(text, (x, line * 20, x + 15, line * 20 + 12), confidence, (1, paragraph), line)


def test_paragraphs_pages_boxes_and_confidence() -> None:
    first = OcrPage(1, 500, 700, (_word("Tides", 10, 1), _word("turn", 30, 1),
                                  _word("slow-", 50, 1), _word("ly.", 10, 2),
                                  _word("Next", 10, 4, paragraph=2, confidence=70.0)))
    second = OcrPage(2, 500, 700, ())
    document = ocr_document([first, second])
    assert document.text == "Tides turn slowly.\n\nNext"
    assert [b.draft.pages for b in document.blocks] == [(1,), (1,)]
    assert document.blocks[0].draft.bbox == (10, 20, 65, 52)
    assert document.notes == ("ocr_confidence page 1: 86.0 (5 words)",
                              "ocr_confidence page 2: none (0 words)")
    assert document.page_count == 2


def test_a_compound_broken_at_a_line_end_keeps_its_hyphen() -> None:
    page = OcrPage(1, 100, 100, (_word("North-", 0, 1), _word("East", 0, 2)))
    assert ocr_document([page]).text == "North-East"


def test_no_words_at_all_is_no_text_layer() -> None:
    with pytest.raises(SheafError) as caught:
        ocr_document([OcrPage(1, 10, 10, ())])
    assert caught.value.kind is ErrorKind.NO_TEXT_LAYER


def test_word_confidences_follow_the_words_and_low_pages_are_flagged() -> None:
    from sheaf.domain.ocr.recognised_text import LOW_CONFIDENCE

    words = (OcrWord("North-", (0, 0, 1, 1), 90.0, (1, 1), 1),
             OcrWord("East", (0, 2, 1, 3), 40.0, (1, 1), 2),
             OcrWord("wind", (2, 2, 3, 3), 30.0, (1, 1), 2))
    document = ocr_document([OcrPage(1, 10, 10, words, "sparse text"),
                             OcrPage(2, 10, 10, (OcrWord("calm", (0, 0, 1, 1), 95.0,
                                                         (1, 1), 1),))])
    first = document.blocks[0].draft
    assert first.text == "North-East wind" and first.word_confidences == (40.0, 30.0)
    assert document.notes == (
        "ocr_confidence page 1: 53.3 (3 words, layout: sparse text)",
        "ocr_confidence page 2: 95.0 (1 words)",
        f"ocr_low_confidence: pages 1 (mean word confidence under {LOW_CONFIDENCE:g}: "
        "check the text against the image)")


def test_the_reading_kept_is_the_most_confident_of_the_nearly_complete_ones() -> None:
    from sheaf.domain.ocr.recognised_text import best_reading, looks_scattered

    def reading(*confidences: float, block_size: int = 10) -> tuple[OcrWord, ...]:
        return tuple(OcrWord(f"w{i}", (0, 0, 1, 1), c, (i // block_size, 1), 1)
                     for i, c in enumerate(confidences))

    jumbled = reading(88, 88, 88, 88, 88, 88, 88, 88, 88, 88)
    sparse = reading(96, 96, 96, 96, 96, 96, 96, 96, 96, 96)
    partial = reading(99, 99, 99)  # very confident, but missed most of the page
    assert best_reading([jumbled, sparse, partial]) == 1
    assert best_reading([sparse, sparse]) == 0
    assert looks_scattered(reading(90, 90, 90, 90, 90, 90, block_size=2))
    assert not looks_scattered(reading(*[90] * 30, block_size=10))
