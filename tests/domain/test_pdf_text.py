"""Text repairs for PDFs: hyphenation, ligatures, normalisation, right-to-left lines."""

from __future__ import annotations

import pytest

from sheaf.domain.pdf_structure import is_bold_font
from sheaf.domain.pdf_text import join_lines, repair_glyphs, visual_to_logical


@pytest.mark.parametrize(("lines", "joined"), [
    (["a fast algo-", "rithm for sorting"], "a fast algorithm for sorting"),
    (["the state-of-the-", "art method"], "the state-of-the-art method"),
    (["ends here.", "Next line"], "ends here. Next line"),
    (["Upper-", "Case stays"], "Upper- Case stays"),
    (["number 12-", "15 range"], "number 12- 15 range"),
])
def test_line_end_hyphenation(lines: list[str], joined: str) -> None:
    assert join_lines(lines) == joined


def test_ligatures_soft_hyphens_and_nfc_but_not_nfkc() -> None:
    assert repair_glyphs("\ufb01rst e\ufb03cient co\u00adoperate") == "first efficient cooperate"
    assert repair_glyphs("e\u0301") == "\u00e9"  # composed
    assert repair_glyphs("x\u00b2 \u2153") == "x\u00b2 \u2153"  # not folded to "x2 1/3"


def test_right_to_left_lines_read_in_logical_order() -> None:
    # "سام 2024" as a PDF lays it out from the left edge: the number first (its digits
    # left to right), then the Arabic word's letters from its last to its first.
    visual = ["2", "0", "2", "4", " ", "م", "ا", "س"]
    assert visual_to_logical(visual) == "سام 2024"
    # A lam-alef ligature glyph carries two letters that must not be swapped.
    assert visual_to_logical(["ی", "\u0644\u0627", "ک"]) == "ک\u0644\u0627ی"
    # Brackets drawn mirrored are read back as written; left-to-right lines stay as they are.
    assert visual_to_logical(["(", "ب", ")", " ", "ا"]) == "ا (ب)"
    assert visual_to_logical(list("plain English (2024)")) == "plain English (2024)"


@pytest.mark.parametrize(("name", "bold"), [
    ("ABCDEF+Times-Bold", True), ("NimbusRomNo9L-Medi", True), ("CMBX10", True),
    ("LMRoman10-Bold", True), ("Arial-BoldMT", True), ("CMR10", False),
    ("ABCDEF+NimbusRomNo9L-Regu", False), ("Helvetica", False), ("CMSSBX10", True),
])
def test_bold_fonts_by_name(name: str, bold: bool) -> None:
    assert is_bold_font(name) is bold
