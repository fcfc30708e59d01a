"""pdfminer's horizontal text rendering, with each glyph's box worked out in one step.

pdfminer builds every glyph (`LTChar`) through a translated matrix, a rectangle
transformed corner by corner and four method calls, per glyph; on a text page that is
the largest single cost of reading it. For upright and mirrored text (no rotation or
skew in the matrix, nearly every glyph of every page) the box is two products and two
sums, computed here with the same floating-point operations in the same order, so the
boxes, and everything built from them, are identical to pdfminer's. Turned or skewed
text and vertical fonts take pdfminer's own path.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import TYPE_CHECKING, Any

from pdfminer.layout import LTChar
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.utils import apply_matrix_rect

Matrix = tuple[float, float, float, float, float, float]


class GlyphChar(LTChar):
    """pdfminer's `LTChar`, its attributes held in slots: a page makes thousands, and
    filling fifteen slots costs less than half of filling a dictionary (measured
    1.1 against 2.6-3.0 microseconds a glyph). Attributes of sheaf's own (the invisible
    mark) still go to the instance dictionary, made only for those glyphs."""

    __slots__ = (
        "_text",
        "adv",
        "bbox",
        "fontname",
        "graphicstate",
        "height",
        "matrix",
        "ncs",
        "size",
        "upright",
        "width",
        "x0",
        "x1",
        "y0",
        "y1",
    )


class GlyphBoxes:
    """Mixin for a `PDFLayoutAnalyzer`: `render_string_horizontal` building glyphs
    directly. `glyphs_coming(count)` is told how many glyphs a string is about to add
    and says whether `glyph_drawn(char)` wants each of them."""

    cur_item: Any

    def glyphs_coming(self, count: int) -> bool:
        """A hook before a string's glyphs are made: whether to call `glyph_drawn`."""
        return False

    def glyph_drawn(self, char: LTChar) -> None:
        """A hook for each glyph as it is added to the page, when `glyphs_coming` asks."""

    if TYPE_CHECKING:
        def handle_undefined_char(self, font: PDFFont, cid: int) -> str: ...

    def render_string_horizontal(self, seq: Any, matrix: Matrix, pos: tuple[float, float],
                                 font: PDFFont, fontsize: float, scaling: float,
                                 charspace: float, wordspace: float, rise: float,
                                 dxscale: float, ncs: Any, graphicstate: Any
                                 ) -> tuple[float, float]:
        (x, y) = pos
        (a, b, c, d, e, f) = matrix
        fontname = font.fontname
        bottom = font.get_descent() * fontsize + rise
        top = bottom + fontsize
        upright = a * d * scaling > 0 and b * c <= 0
        plain = b == 0 and c == 0
        # A font's glyph text and width depend on the code alone: looked up once per code.
        known: dict[int, tuple[str, float]] | None = getattr(font, "sheaf_glyphs", None)
        if known is None:
            known = {}
            font.sheaf_glyphs = known  # type: ignore[attr-defined]
        container = self.cur_item
        new_glyph = GlyphChar.__new__
        needcharspace = False
        for obj in seq:
            if isinstance(obj, int | float):
                x -= obj * dxscale
                needcharspace = True
            elif isinstance(obj, bytes):
                cids = font.decode(obj)
                if not isinstance(cids, Sized):  # pdfminer's fonts give a sequence
                    cids = list(cids)
                hook = self.glyph_drawn if self.glyphs_coming(len(cids)) else None
                for cid in cids:
                    if needcharspace:
                        x += charspace
                    glyph = known.get(cid)
                    if glyph is None:
                        try:
                            text = font.to_unichr(cid)
                        except PDFUnicodeNotDefined:
                            text = self.handle_undefined_char(font, cid)
                        if not isinstance(text, str):
                            raise TypeError(f"glyph text is {type(text).__name__}")
                        glyph = known[cid] = (text, font.char_width(cid))
                    text = glyph[0]
                    adv = glyph[1] * fontsize * scaling
                    # translate_matrix(matrix, (x, y)), as pdfminer computes it.
                    ex, fy = x * a + y * c + e, x * b + y * d + f
                    char = new_glyph(GlyphChar)
                    char._text = text
                    char.matrix = (a, b, c, d, ex, fy)
                    char.fontname = fontname
                    char.ncs = ncs
                    char.graphicstate = graphicstate
                    char.adv = adv
                    char.upright = upright
                    if plain:
                        x0, x1 = ex, a * adv + ex
                        y0, y1 = d * bottom + fy, d * top + fy
                        if x1 < x0:
                            x0, x1 = x1, x0
                        if y1 < y0:
                            y0, y1 = y1, y0
                    else:
                        (x0, y0, x1, y1) = apply_matrix_rect(char.matrix, (0, bottom, adv, top))
                        if x1 < x0:
                            x0, x1 = x1, x0
                        if y1 < y0:
                            y0, y1 = y1, y0
                    char.x0, char.y0, char.x1, char.y1 = x0, y0, x1, y1
                    char.width, char.height = x1 - x0, y1 - y0
                    char.bbox = (x0, y0, x1, y1)
                    char.size = char.height
                    container.add(char)
                    if hook is not None:
                        hook(char)
                    x += adv
                    if cid == 32 and wordspace:
                        x += wordspace
                    needcharspace = True
        return (x, y)
