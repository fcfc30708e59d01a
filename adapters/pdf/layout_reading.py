"""Reading laid-out text lines from pdfminer.six, page by page."""

from __future__ import annotations

import io
import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import (
    LAParams,
    LTAnno,
    LTChar,
    LTFigure,
    LTItem,
    LTPage,
    LTTextBox,
    LTTextLine,
)
from pdfminer.pdfcolor import PDFColorSpace
from pdfminer.pdfdevice import PDFTextSeq
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfexceptions import PDFException
from pdfminer.pdfinterp import PDFGraphicState, PDFResourceManager, PDFTextState
from pdfminer.pdfpage import PDFPage
from pdfminer.psexceptions import PSException

from sheaf.adapters.pdf.content_budget import (
    BoundedInterpreter,
    BoundedParser,
    ContentBudget,
    ContentLimits,
)
from sheaf.adapters.pdf.stable_grouping import StableFigure, StablePage
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.pdf_structure import TextBox, TextLine, is_bold_font
from sheaf.domain.pdf_text import visual_to_logical

# pdfminer's defaults, except all_texts: LaTeX output often draws whole pages inside
# form XObjects, whose text pdfminer otherwise leaves as loose glyphs with no spaces
# inferred between words (the "glued words" of ../shared/notes/pdf-pitfalls.md).
INVISIBLE_RENDER_MODE = 3
LAYOUT = LAParams(line_overlap=0.5, char_margin=2.0, line_margin=0.5, word_margin=0.1,
                  boxes_flow=0.5, all_texts=True)

for _noisy in ("pdfminer", "pdfminer.pdfinterp", "pdfminer.pdfpage", "pdfminer.converter"):
    logging.getLogger(_noisy).setLevel(logging.ERROR)


class _InvisibleMarkingAggregator(PDFPageAggregator):
    """Marks each character drawn in text render mode 3 (invisible), which pdfminer's
    layout objects do not record."""

    _invisible = False

    def __init__(self, resources: PDFResourceManager, budget: ContentBudget) -> None:
        super().__init__(resources, laparams=LAYOUT)
        self.sheaf_budget = budget

    def render_string(self, textstate: PDFTextState, seq: PDFTextSeq, ncs: PDFColorSpace,
                      graphicstate: PDFGraphicState) -> None:
        self._invisible = textstate.render == INVISIBLE_RENDER_MODE
        super().render_string(textstate, seq, ncs, graphicstate)

    def begin_page(self, page: PDFPage, ctm: Any) -> None:
        super().begin_page(page, ctm)
        self.cur_item.__class__ = StablePage

    def begin_figure(self, name: str, bbox: Any, matrix: Any) -> None:
        super().begin_figure(name, bbox, matrix)
        self.cur_item.__class__ = StableFigure

    def paint_path(self, *args: Any, **kwargs: Any) -> None:
        self.sheaf_budget.drawn()
        super().paint_path(*args, **kwargs)

    def render_image(self, *args: Any, **kwargs: Any) -> None:
        self.sheaf_budget.drawn()
        super().render_image(*args, **kwargs)

    def render_char(self, *args: Any, **kwargs: Any) -> float:
        self.sheaf_budget.drawn()
        advance: float = super().render_char(*args, **kwargs)
        if self._invisible and self.cur_item is not None and self.cur_item._objs:
            self.cur_item._objs[-1].sheaf_invisible = True  # type: ignore[attr-defined]
        return advance


def _pages(data: bytes, budget: ContentBudget, max_pages: int) -> Iterator[LTPage]:
    resources = PDFResourceManager(caching=True)
    device = _InvisibleMarkingAggregator(resources, budget)
    interpreter = BoundedInterpreter(resources, device)
    document = PDFDocument(BoundedParser(io.BytesIO(data), budget), caching=True)
    for number, page in enumerate(PDFPage.create_pages(document), start=1):
        if number > max_pages:
            raise SheafError(ErrorKind.TOO_LARGE, f"more than {max_pages} pages (the page limit)")
        budget.start_page(number)
        interpreter.process_page(page)
        budget.check_time()
        yield device.get_result()


def read_boxes(data: bytes, *, max_pages: int, deadline: float,
               notes: list[str] | None = None,
               limits: ContentLimits | None = None) -> Iterator[TextBox]:
    """Yield text boxes in reading order, one page at a time (memory stays per page).

    Invisible text (render mode 3) is kept on pages that have no visible text, where it
    is an OCR layer over a scan, and dropped elsewhere, where it can only be hidden
    from readers (ADR-0006); each drop is noted in `notes`. Decoded bytes, operators,
    glyphs and time are bounded while each page is processed (`ContentLimits`)."""
    budget = ContentBudget(limits or ContentLimits(), deadline)
    try:
        for number, page in enumerate(_pages(data, budget, max_pages), start=1):
            yield from _page_boxes(page, number, notes if notes is not None else [])
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


def _invisible(item: LTItem) -> bool:
    return getattr(item, "sheaf_invisible", False)


def _page_boxes(page: LTPage, number: int, notes: list[str]) -> Iterator[TextBox]:
    boxes = list(_text_boxes(page))
    all_chars = [c for box in boxes for line in box if isinstance(line, LTTextLine)
                 for c in line if isinstance(c, LTChar)]
    hidden = sum(1 for c in all_chars if _invisible(c))
    drop_invisible = 0 < hidden < len(all_chars)
    if drop_invisible:
        notes.append(f"invisible_text_dropped: page {number}, {hidden} characters")
    for element in boxes:
        lines: list[TextLine] = []
        for line in element:
            if not isinstance(line, LTTextLine):
                continue
            sizes: Counter[float] = Counter()
            fonts: Counter[str] = Counter()
            for char in line:
                if drop_invisible and _invisible(char):
                    continue
                if isinstance(char, LTChar) and char.get_text().strip():
                    sizes[round(char.size, 1)] += 1
                    fonts[char.fontname] += 1
            if not sizes:
                continue
            font = fonts.most_common(1)[0][0]
            bold = sum(n for name, n in fonts.items() if is_bold_font(name))
            glyphs = [item.get_text() for item in line if isinstance(item, LTChar | LTAnno)
                      and not (drop_invisible and _invisible(item))]
            lines.append(TextLine(text=visual_to_logical(glyphs).rstrip("\n"),
                                  size=sizes.most_common(1)[0][0], font=font,
                                  bold=bold >= 0.8 * sum(fonts.values()),
                                  chars=sum(fonts.values()), bbox=line.bbox))
        if lines:
            yield TextBox(page=number, lines=tuple(lines), bbox=element.bbox)
