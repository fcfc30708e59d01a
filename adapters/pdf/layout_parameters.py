"""The layout analysis parameters both PDF engines read pages with (ADR-0042)."""

from __future__ import annotations

from pdfminer.layout import LAParams

# pdfminer's defaults, except all_texts: LaTeX output often draws whole pages inside
# form XObjects, whose text pdfminer otherwise leaves as loose glyphs with no spaces
# inferred between words (the "glued words" of ../shared/notes/pdf-pitfalls.md).
INVISIBLE_RENDER_MODE = 3
LAYOUT = LAParams(line_overlap=0.5, char_margin=2.0, line_margin=0.5, word_margin=0.1,
                  boxes_flow=0.5, all_texts=True)
