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
