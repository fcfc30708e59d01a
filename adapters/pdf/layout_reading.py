"""Reading laid-out text lines from pdfminer.six, page by page."""

from __future__ import annotations

import io
import logging
import time
from collections import Counter
from collections.abc import Iterator

from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTAnno, LTChar, LTFigure, LTPage, LTTextBox, LTTextLine
from pdfminer.pdfexceptions import PDFException
from pdfminer.psexceptions import PSException

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.pdf_structure import TextBox, TextLine, is_bold_font
from sheaf.domain.pdf_text import visual_to_logical

# pdfminer's defaults, except all_texts: LaTeX output often draws whole pages inside
# form XObjects, whose text pdfminer otherwise leaves as loose glyphs with no spaces
# inferred between words (the "glued words" of ../shared/notes/pdf-pitfalls.md).
LAYOUT = LAParams(line_overlap=0.5, char_margin=2.0, line_margin=0.5, word_margin=0.1,
                  boxes_flow=0.5, all_texts=True)

for _noisy in ("pdfminer", "pdfminer.pdfinterp", "pdfminer.pdfpage", "pdfminer.converter"):
    logging.getLogger(_noisy).setLevel(logging.ERROR)


def read_boxes(data: bytes, *, max_pages: int, deadline: float) -> Iterator[TextBox]:
    """Yield text boxes in reading order, one page at a time (memory stays per page)."""
    try:
        for number, page in enumerate(extract_pages(io.BytesIO(data), laparams=LAYOUT),
                                      start=1):
            if number > max_pages:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"more than {max_pages} pages (the page limit)")
            if time.monotonic() > deadline:
                raise SheafError(ErrorKind.TIMEOUT,
                                 f"extraction ran out of its time budget at page {number}")
            yield from _page_boxes(page, number)
    except SheafError:
        raise
    except (PDFException, PSException, ValueError, KeyError, TypeError, AttributeError,
            IndexError, AssertionError, RecursionError, ZeroDivisionError, OverflowError,
            UnicodeDecodeError) as exc:
        raise SheafError(ErrorKind.CORRUPT, f"unreadable content: {type(exc).__name__}: {exc}"
                         ) from None


def _text_boxes(container: LTPage | LTFigure) -> Iterator[LTTextBox]:
    """Text boxes in reading order, those inside form XObjects (figures) included."""
    for element in container:
        if isinstance(element, LTTextBox):
            yield element
        elif isinstance(element, LTFigure):
            yield from _text_boxes(element)


def _page_boxes(page: LTPage, number: int) -> Iterator[TextBox]:
    for element in _text_boxes(page):
        lines: list[TextLine] = []
        for line in element:
            if not isinstance(line, LTTextLine):
                continue
            sizes: Counter[float] = Counter()
            fonts: Counter[str] = Counter()
            for char in line:
                if isinstance(char, LTChar) and char.get_text().strip():
                    sizes[round(char.size, 1)] += 1
                    fonts[char.fontname] += 1
            if not sizes:
                continue
            font = fonts.most_common(1)[0][0]
            bold = sum(n for name, n in fonts.items() if is_bold_font(name))
            glyphs = [item.get_text() for item in line if isinstance(item, LTChar | LTAnno)]
            lines.append(TextLine(text=visual_to_logical(glyphs).rstrip("\n"),
                                  size=sizes.most_common(1)[0][0], font=font,
                                  bold=bold >= 0.8 * sum(fonts.values()),
                                  chars=sum(fonts.values()), bbox=line.bbox))
        if lines:
            yield TextBox(page=number, lines=tuple(lines), bbox=element.bbox)
