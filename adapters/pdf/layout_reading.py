"""Reading laid-out text lines from pdfminer.six, page by page."""

from __future__ import annotations

import functools
import io
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs
from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import (
    LTAnno,
    LTChar,
    LTFigure,
    LTItem,
    LTLine,
    LTPage,
    LTRect,
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

from ...domain.errors import ErrorKind, SheafError
from ...domain.pdf.formulas import is_math_font, is_math_symbol
from ...domain.pdf.glyph_plausibility import implausibility, is_unmapped_reason
from ...domain.pdf.ruled_tables import Rule, rule_segments
from ...domain.pdf.structure import TextBox, TextLine, is_bold_font, rejoin_split_rows
from ...domain.pdf.text_repairs import visual_to_logical
from .content_budget import (
    BoundedInterpreter,
    BoundedParser,
    ContentBudget,
    ContentLimits,
)
from .font_encoding import EncodingRepairingResources
from .font_programs import usable_text
from .glyph_boxes import GlyphBoxes
from .layout_parameters import INVISIBLE_RENDER_MODE, LAYOUT
from .pdfium_layout import PdfiumLayoutPages
from .pdfium_text import PdfiumPages, pdfium_available
from .stable_grouping import StableFigure, StablePage
from .turned_text import in_margin, turned_lines

for _noisy in ("pdfminer", "pdfminer.pdfinterp", "pdfminer.pdfpage", "pdfminer.converter"):
    logging.getLogger(_noisy).setLevel(logging.ERROR)


class _InvisibleMarkingAggregator(GlyphBoxes, PDFPageAggregator):
    """Marks each character drawn in text render mode 3 (invisible), which pdfminer's
    layout objects do not record; counts glyphs against the page's budget."""

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

    def glyphs_coming(self, count: int) -> bool:
        self.sheaf_budget.drawn_many(count)
        return self._invisible

    def glyph_drawn(self, char: LTChar) -> None:
        char.sheaf_invisible = True  # type: ignore[attr-defined]

    def render_char(self, *args: Any, **kwargs: Any) -> float:
        # Glyphs of vertical fonts; horizontal ones are built by GlyphBoxes.
        self.sheaf_budget.drawn()
        advance: float = super().render_char(*args, **kwargs)
        if self._invisible and self.cur_item is not None and self.cur_item._objs:
            self.cur_item._objs[-1].sheaf_invisible = True  # type: ignore[attr-defined]
        return advance


def _pages(data: bytes, budget: ContentBudget, max_pages: int) -> Iterator[LTPage]:
    resources = EncodingRepairingResources(caching=True)
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


@attrs.frozen
class _PageReading:
    """One page's text boxes and what was found reading them, before they are kept."""

    boxes: list[TextBox]
    chars: list[LTChar]
    undecodable: dict[str, str]
    rules: list[Rule]
    notes: list[str]
    stamps: list[TextBox]


def _read_page(page: LTPage, number: int, stamps: list[TextBox] | None) -> _PageReading:
    notes: list[str] = []
    page_stamps: list[TextBox] = []
    chars = list(_page_chars(page))
    undecodable = _undecodable_fonts(chars)
    boxes = list(_page_boxes(page, number, notes, chars, skip_fonts=set(undecodable),
                             stamps=page_stamps if stamps is not None else None))
    return _PageReading(boxes, chars, undecodable, list(_page_rules(page)), notes,
                        page_stamps)


class _PdfminerRereading:
    """pdfminer's reading of single pages, for the PDFium engine's pages whose fonts
    PDFium cannot map to text: pdfminer reads TeX's symbol fonts and others through their
    font programs (ADR-0032), so its reading of such a page is kept when it decodes more
    of the page's fonts (ADR-0042)."""

    def __init__(self, data: bytes, budget: ContentBudget) -> None:
        self._data = data
        self._budget = budget
        self._pages: list[PDFPage] | None = None
        self._interpreter: BoundedInterpreter | None = None
        self._device: _InvisibleMarkingAggregator | None = None

    def better(self, read: _PageReading, number: int, stamps: list[TextBox] | None
               ) -> _PageReading:
        try:
            page = self._page(number)
        except (PDFException, PSException, ValueError, KeyError, TypeError,
                AttributeError, IndexError, AssertionError, RecursionError):
            return read
        if page is None:
            return read
        again = _read_page(page, number, stamps)
        if len(again.undecodable) >= len(read.undecodable):
            return read
        fonts = ", ".join(sorted(_font_label(font) for font in read.undecodable))
        return attrs.evolve(again, notes=[
            f"text_recovered: page {number}, by pdfminer; PDFium could not decode {fonts}",
            *again.notes])

    def _page(self, number: int) -> LTPage | None:
        if self._pages is None:
            resources = EncodingRepairingResources(caching=True)
            self._device = _InvisibleMarkingAggregator(resources, self._budget)
            self._interpreter = BoundedInterpreter(resources, self._device)
            document = PDFDocument(BoundedParser(io.BytesIO(self._data), self._budget),
                                   caching=True)
            self._pages = list(PDFPage.create_pages(document))
        if not 0 < number <= len(self._pages):
            return None
        assert self._interpreter is not None and self._device is not None
        self._interpreter.process_page(self._pages[number - 1])
        result: LTPage = self._device.get_result()
        return result


def read_boxes(data: bytes, *, max_pages: int, deadline: float,
               notes: list[str] | None = None,
               limits: ContentLimits | None = None,
               rules: dict[int, list[Rule]] | None = None,
               stamps: list[TextBox] | None = None,
               engine: str = "pdfminer") -> Iterator[TextBox]:
    """Yield text boxes in reading order, one page at a time (memory stays per page).
    `engine` "pdfium" takes the pages' glyphs and rules from PDFium (ADR-0042) into the
    same layout analysis; "pdfminer" interprets them in Python.
    Text turned against the page in its margins (stamps) goes to `stamps`, not the body.

    Invisible text (render mode 3) is kept on pages that have no visible text, where it
    is an OCR layer over a scan, and dropped elsewhere, where it can only be hidden
    from readers (ADR-0006); each drop is noted in `notes`. Decoded bytes, operators,
    glyphs and time are bounded while each page is processed (`ContentLimits`)."""
    budget = ContentBudget(limits or ContentLimits(), deadline)
    notes = notes if notes is not None else []
    recovery: PdfiumPages | None = None
    reread: _PdfminerRereading | None = None
    pages: Iterable[LTPage]
    if engine == "pdfium":
        pages = opened_pages = PdfiumLayoutPages(data, budget, max_pages)
        reread = _PdfminerRereading(data, budget)
    else:
        recovery = PdfiumPages(data)
        pages = _pages(data, budget, max_pages)
    try:
        for number, page in enumerate(pages, start=1):
            read = _read_page(page, number, stamps)
            if read.undecodable and reread is not None:
                read = reread.better(read, number, stamps)
            if rules is not None and read.rules:
                rules[number] = read.rules
            notes.extend(read.notes)
            if stamps is not None:
                stamps.extend(read.stamps)
            boxes = read.boxes
            if read.undecodable:
                boxes = _recover(recovery, read.chars, number, read.undecodable, boxes, notes)
            yield from boxes
    except SheafError:
        raise
    except (PDFException, PSException, ValueError, KeyError, TypeError, AttributeError,
            IndexError, AssertionError, RecursionError, ZeroDivisionError, OverflowError,
            UnicodeDecodeError) as exc:
        raise SheafError(ErrorKind.CORRUPT, f"unreadable content: {type(exc).__name__}: {exc}"
                         ) from None
    finally:
        if recovery is not None:
            recovery.close()
        else:
            opened_pages.close()


def _text_boxes(container: LTPage | LTFigure) -> Iterator[LTTextBox]:
    """Text boxes in reading order, those inside form XObjects (figures) included."""
    for element in container:
        if isinstance(element, LTTextBox):
            yield element
        elif isinstance(element, LTFigure):
            yield from _text_boxes(element)


MAX_RULES_PER_PAGE = 5000


def _page_rules(container: LTPage | LTFigure) -> Iterator[Rule]:
    """The ruling lines a page draws: straight lines and rectangles (a chart's curves
    are not rules); at most `MAX_RULES_PER_PAGE`, so hatching costs nothing."""
    count = 0
    stack: list[LTPage | LTFigure] = [container]
    while stack:
        for element in stack.pop():
            if isinstance(element, LTLine | LTRect):
                for rule in rule_segments(*element.bbox):
                    count += 1
                    if count > MAX_RULES_PER_PAGE:
                        return
                    yield rule
            elif isinstance(element, LTFigure):
                stack.append(element)


def _invisible(item: LTItem) -> bool:
    return getattr(item, "sheaf_invisible", False)


def _page_chars(page: LTPage) -> Iterator[LTChar]:
    for box in _text_boxes(page):
        for line in box:
            if isinstance(line, LTTextLine):
                yield from (c for c in line if isinstance(c, LTChar))


# Below this share of a page's characters, a font whose text only looks unlike writing
# (punctuation, few vowels) is a formula or a number table and is kept.
_MAJOR_FONT_SHARE = 0.25


def _undecodable_fonts(chars: list[LTChar]) -> dict[str, str]:
    """Fonts whose text on this page is glyph codes, not writing, with the reason: those
    with unmapped or private-use code points, and those carrying a large share of the
    page whose characters are distributed unlike any writing."""
    by_font: dict[str, list[str]] = {}
    for char in chars:
        texts = by_font.get(char.fontname)
        if texts is None:
            texts = by_font[char.fontname] = []
        texts.append(char._text)
    total = sum(len(texts) for texts in by_font.values())
    found: dict[str, str] = {}
    for font, texts in sorted(by_font.items()):
        reason = implausibility("".join(texts))
        if reason and (is_unmapped_reason(reason) or len(texts) >= _MAJOR_FONT_SHARE * total):
            found[font] = reason
    return found


def _recover(recovery: PdfiumPages | None, chars: list[LTChar], number: int,
             undecodable: dict[str, str],
             boxes: list[TextBox], notes: list[str]) -> list[TextBox]:
    """The page as PDFium reads it when its text is writing; else the page without the
    undecodable fonts' text, which is flagged, never passed off as text."""
    fonts = ", ".join(f"{_font_label(font)} ({reason})"
                      for font, reason in sorted(undecodable.items()))
    share = sum(1 for c in chars if c.fontname in undecodable) / max(1, len(chars))
    # PDFium rereads the page when much of it is lost; a formula's symbols alone are
    # left out rather than trade pdfminer's layout of the whole page for them.
    recovered = (recovery.plausible_boxes(number)
                 if recovery is not None and share >= _MAJOR_FONT_SHARE else None)
    if recovered is not None:
        notes.append(f"text_recovered: page {number}, by PDFium; pdfminer could not decode "
                     f"{fonts}")
        return recovered
    notes.append(f"undecodable_text: page {number}, {fonts}; that text is left out"
                 + ("" if pdfium_available() else " (install sheaf[pdfium] to try PDFium)"))
    return boxes


_READABLE: set[str] = set()
_UNMAPPED = re.compile(r"\(cid:\d+\)")
MAX_READABLE_KNOWN = 100_000


def _unreadable(glyph: str) -> bool:
    """Whether a glyph's text is a placeholder, control, private-use or replacement
    point (remembered when it is not: a page has a few dozen distinct glyphs)."""
    # An empty glyph text is a shaped cluster's part, whose text another glyph carries.
    if not glyph or glyph.isspace() or not (_UNMAPPED.fullmatch(glyph)
                                            or not usable_text(glyph)):
        if len(_READABLE) < MAX_READABLE_KNOWN:
            _READABLE.add(glyph)
        return False
    return True


@functools.lru_cache(maxsize=8192)
def _math_glyph(font: str, glyph: str) -> bool:
    return is_math_font(font) or any(map(is_math_symbol, glyph))


def _rotated(char: LTChar) -> bool:
    return not char.upright


def _page_boxes(page: LTPage, number: int, notes: list[str], all_chars: list[LTChar],
                skip_fonts: set[str] | None = None,
                stamps: list[TextBox] | None = None) -> Iterator[TextBox]:
    """The page's boxes as sheaf's text boxes; `all_chars` are the glyphs in them."""
    boxes = list(_text_boxes(page))
    hidden = turned = 0
    for c in all_chars:
        hidden += _invisible(c)
        if not c.upright and c._text.strip():
            turned += 1
    drop_invisible = 0 < hidden < len(all_chars)
    if drop_invisible:
        notes.append(f"invisible_text_dropped: page {number}, {hidden} characters")
    # Text turned against the page's own direction is a margin stamp (arXiv's), a
    # watermark or a rotated axis label when it is a small part of the page: it is read
    # apart from the upright lines, along its own direction; a page that is mostly
    # turned (a landscape table, a /Rotate page) is read as it lies.
    drop_turned = 0 < turned <= 0.2 * len(all_chars)
    if drop_turned:
        notes.append(f"rotated_text_set_apart: page {number}, {turned} characters read "
                     f"along their own direction (margin stamps as furniture, the rest "
                     f"as figure text)")
    skip = skip_fonts or set()

    def dropped(char: LTChar) -> bool:
        return ((drop_invisible and _invisible(char)) or char.fontname in skip
                or (drop_turned and _rotated(char)))

    # Most pages drop nothing: their glyphs are not asked one by one.
    keep_all = not (drop_invisible or drop_turned or skip)

    kept: list[TextBox] = []
    for element in boxes:
        lines = [text_line for line in element if isinstance(line, LTTextLine)
                 and (text_line := _text_line(line, None if keep_all else dropped)) is not None]
        if lines:
            kept.append(TextBox(page=number, lines=tuple(rejoin_split_rows(lines)),
                                bbox=element.bbox))
    if drop_turned:
        # Turned lines beside the text are margin stamps (kept once, as furniture);
        # those among it are a figure's axis labels or a table's turned headers, read
        # in their own direction and kept on the page as figure text.
        among: list[TextBox] = []
        for turned_line in turned_lines(
                (c for c in all_chars if _rotated(c) and not (drop_invisible and _invisible(c))
                 and c.fontname not in skip), number):
            if not in_margin(turned_line, kept):
                among.append(turned_line)
            elif stamps is not None:
                stamps.append(turned_line)
        kept.extend(among)
    yield from kept


def _text_line(line: LTTextLine, dropped: Callable[[LTChar], bool] | None
               ) -> TextLine | None:
    """One pass over a line's glyphs: its text in reading order (each glyph's left edge
    kept for right-to-left lines; a space that layout analysis inserted stands at the
    right edge of the glyph before it), dominant size and font, weight and math share.
    None when no visible glyph is left."""
    # Sizes, fonts and glyphs of visible glyphs are gathered in lists and counted at
    # the end (in C); the counts, and the order ties break in, are those of counting
    # glyph by glyph.
    sizes_seen: list[float] = []
    fonts_seen: list[str] = []
    visible: list[str] = []
    glyphs: list[str] = []
    lefts: list[float] = []
    edge = float("-inf")
    for item in line:
        if isinstance(item, LTChar):
            if dropped is not None and dropped(item):
                continue
            glyph = item._text
            if glyph not in _READABLE and _unreadable(glyph):
                # A glyph with no text (no map names it, or it maps to a control or
                # private-use point) is most often a word processor's space left out
                # of ToUnicode: it still stands between two words, so it parts them.
                # Where it was a letter, the word is lost either way.
                if glyphs and glyphs[-1] != " ":
                    glyphs.append(" ")
                    lefts.append(edge)
                edge = item.x1
                continue
            glyphs.append(glyph)
            lefts.append(item.x0)
            edge = item.x1
            if glyph.strip():
                sizes_seen.append(item.size)
                fonts_seen.append(item.fontname)
                visible.append(glyph)
        elif isinstance(item, LTAnno) and (glyph := item._text) != "\n":
            glyphs.append(glyph)
            lefts.append(edge)
    if not sizes_seen:
        return None
    return _line_summary(line, visual_to_logical(glyphs, lefts), sizes_seen, fonts_seen,
                         visible)


def _line_summary(line: LTTextLine, text: str, sizes_seen: list[float],
                  fonts_seen: list[str], visible: list[str]) -> TextLine:
    """The line from its text and its visible glyphs' sizes, fonts and texts: the
    dominant size (rounded to 0.1, ties to the size seen first) and font, bold when
    0.8 of its glyphs are, and how many glyphs are math. A line in one size or one font
    (most lines) is not counted for it."""
    chars = len(fonts_seen)
    if sizes_seen.count(sizes_seen[0]) == chars:
        size = round(sizes_seen[0], 1)
    else:
        sizes: Counter[float] = Counter()
        for seen, count in Counter(sizes_seen).items():
            sizes[round(seen, 1)] += count
        size = sizes.most_common(1)[0][0]
    if fonts_seen.count(fonts_seen[0]) == chars:
        font = fonts_seen[0]
        bold = chars if is_bold_font(font) else 0
    else:
        fonts = Counter(fonts_seen)
        font = fonts.most_common(1)[0][0]
        bold = sum(n for name, n in fonts.items() if is_bold_font(name))
    math = sum(map(_math_glyph, fonts_seen, visible))
    return TextLine(text=text, size=size, font=font, bold=bold >= 0.8 * chars, chars=chars,
                    bbox=line.bbox, math=math)


def _font_label(font: str) -> str:
    """A font's name without its subset prefix (ABCDEF+Times-Roman)."""
    return font.split("+", 1)[-1] or "(unnamed)"
