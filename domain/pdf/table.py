"""A table found on a PDF page, from its ruling lines or from the alignment of its text."""

from __future__ import annotations

import attrs

from ..document.document import BlockDraft, BlockKind
from .geometry import Bbox


@attrs.frozen
class PdfTable:
    """A table found on one page: its cells by row, its box, the lines it took over."""

    page: int
    rows: tuple[tuple[str, ...], ...]
    bbox: Bbox
    taken: frozenset[tuple[int, int]]
    """(box index, line index) of every line that became a cell."""

    def draft(self) -> BlockDraft:
        return BlockDraft(BlockKind.TABLE, rows=self.rows, pages=(self.page,), bbox=self.bbox)
