"""Page furniture kept once: the running headers, footers and margin stamps of a PDF.

They are dropped from the body (ADR-0013) because repeated on every page they break
sentences and chunks, but they carry citation facts (journal, volume, year, DOI, arXiv
identifier, printed page range), so each distinct line is kept once, after the content.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sheaf.domain.document import BlockDraft, BlockKind
from sheaf.domain.pdf_structure import TextBox, masked_running_text

_WORD = re.compile(r"[^\W\d_]{2}")


def furniture_blocks(boxes: Sequence[TextBox]) -> list[BlockDraft]:
    """One furniture block per distinct line (digits masked, so "Page 3" and "Page 4" are
    one line), its text as first printed, with every page it is printed on; in the order
    the lines first appear, top of the page first."""
    first: dict[str, TextBox] = {}
    pages: dict[str, set[int]] = {}
    for box in sorted(boxes, key=lambda b: (b.page, -b.bbox[3], b.bbox[0])):
        text = " ".join(box.text.split())
        key = masked_running_text(text)
        if not _WORD.search(key):  # a page number (3, iii, 143143) says nothing once
            continue
        first.setdefault(key, box)
        pages.setdefault(key, set()).add(box.page)
    return [BlockDraft(BlockKind.FURNITURE, text=" ".join(box.text.split()),
                       pages=tuple(sorted(pages[key])), bbox=box.bbox)
            for key, box in first.items()]
