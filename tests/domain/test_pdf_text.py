"""Text repairs for PDFs: hyphenation, ligatures, normalisation, right-to-left lines."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.pdf.structure import is_bold_font
from sheaf.domain.pdf.text_repairs import (
    MATH_ACCENTS,
    SPACING_ACCENTS,
    join_lines,
    repair_glyphs,
    visual_to_logical,
)
from tests.property_examples import examples


@pytest.mark.parametrize(("lines", "joined"), [
    (["a fast algo-", "rithm for sorting"], "a fast algorithm for sorting"),
    (["the state-of-the-", "art method"], "the state-of-the-art method"),
    (["ends here.", "Next line"], "ends here. Next line"),
    (["Upper-", "Case stays"], "Upper- Case stays"),
    (["number 12-", "15 range"], "number 12- 15 range"),
    (["a shal\u00ad", "low sea"], "a shallow sea"),
    (["Soft\u00ad", "Ware"], "SoftWare"),
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


@settings(max_examples=examples(100), deadline=None)
@given(st.permutations(range(8)))
def test_a_right_to_left_line_reads_by_position_whatever_the_drawing_order(
        order: list[int]) -> None:
    # "- کالای" laid out from the left edge: a space, then the word from its last letter
    # to its first, a space and a dash; the PDF may draw these in any order.
    laid_out = [" ", "ی", "\u0644\u0627", "ا", "ک", " ", "-"]
    lefts = [96.0, 99.1, 107.9, 114.6, 118.2, 124.8, 127.8]
    drawn = [i for i in order if i < len(laid_out)]
    text = visual_to_logical([laid_out[i] for i in drawn], [lefts[i] for i in drawn])
    assert text == "- کا\u0644\u0627ی "


@pytest.mark.parametrize(("name", "bold"), [
    ("ABCDEF+Times-Bold", True), ("NimbusRomNo9L-Medi", True), ("CMBX10", True),
    ("LMRoman10-Bold", True), ("Arial-BoldMT", True), ("CMR10", False),
    ("ABCDEF+NimbusRomNo9L-Regu", False), ("Helvetica", False), ("CMSSBX10", True),
])
def test_bold_fonts_by_name(name: str, bold: bool) -> None:
    assert is_bold_font(name) is bold


def test_glyph_codes_are_implausible_and_writing_is_not() -> None:
    from sheaf.domain.pdf.glyph_plausibility import implausibility

    assert implausibility('!"#!"$ % &%\' % !$& !"#$% &\'"# !"#!"$ % &%\' % !$&') is not None
    assert implausibility("\ue000\ue001\ue002 " * 12) is not None
    assert implausibility("(cid:12)(cid:40)(cid:7) " * 12) is not None
    for text in ("The results in Table 2 show a clear gain (p < 0.05) over the baseline.",
                 "Die Ergebnisse zeigen einen deutlichen Gewinn gegenüber der Basislinie.",
                 "本研究では、提案手法が従来手法よりも高い精度を示すことを確認した。",
                 "∀x ∈ ℝ: f(x) = ∑ᵢ αᵢ·xⁱ ≤ ‖x‖² + λ, where α, λ > 0 and i = 1, …, n"):
        assert implausibility(text * 3) is None, text


def test_letters_shifted_by_a_private_encoding_are_implausible() -> None:
    from sheaf.domain.pdf.glyph_plausibility import implausibility

    plain = "the method improves recall on every paper of the development corpus " * 4
    shifted = "".join(chr((ord(c) - 97 + 7) % 26 + 97) if c.isalpha() else c for c in plain)
    assert implausibility(plain) is None
    assert implausibility(shifted) is not None


_MARK_TO_SPACING = {mark: spacing for spacing, mark in SPACING_ACCENTS.items()}
_ACCENTED_LETTERS = sorted(
    c for c in map(chr, range(0xC0, 0x2000))
    if c.isalpha() and len(unicodedata.normalize("NFD", c)) == 2
    and unicodedata.normalize("NFD", c)[1] in _MARK_TO_SPACING)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(_ACCENTED_LETTERS), st.text(alphabet="abcdefghij", max_size=5),
       st.text(alphabet="klmnopqrs", max_size=5))
def test_an_accent_drawn_as_its_own_glyph_lands_on_the_letter_after_it(
        letter: str, before: str, after: str) -> None:
    base, mark = unicodedata.normalize("NFD", letter)
    spaced = before + _MARK_TO_SPACING[mark] + ("\u0131" if base == "i" else base) + after
    assert repair_glyphs(spaced) == before + unicodedata.normalize("NFC", letter) + after


def test_an_accent_that_makes_no_letter_stays_as_printed() -> None:
    assert repair_glyphs("don\u00b4t") == "don\u00b4t"
    assert repair_glyphs("x \u00b4 y") == "x \u00b4 y"
    assert repair_glyphs("http://host/\u02dcuser") == "http://host/\u02dcuser"


@pytest.mark.parametrize("accent", sorted(MATH_ACCENTS))
@pytest.mark.parametrize("letter", ["σ", "θ", "q", "ρ"])
def test_a_math_accent_over_a_letter_with_no_precomposed_form_is_its_combining_mark(
        accent: str, letter: str) -> None:
    spaced = f"where {accent}{letter}x is"
    expected = unicodedata.normalize("NFC", letter + SPACING_ACCENTS[accent])
    assert repair_glyphs(spaced) == f"where {expected}x is"


def test_line_number_rulers_and_ornaments_are_told_from_text() -> None:
    from sheaf.domain.pdf.structure import TextBox, TextLine, is_decorative, is_line_number_ruler

    def box(texts: list[str]) -> TextBox:
        lines = tuple(TextLine(text=t, size=8, font="F", bold=False, chars=len(t),
                               bbox=(0, 0, 10, 10)) for t in texts)
        return TextBox(page=1, lines=lines, bbox=(0, 0, 10, 10))

    assert is_line_number_ruler(box([str(n) for n in range(1, 34)]))
    assert is_line_number_ruler(box([*map(str, range(1, 32)), "32S", "33R"]))
    assert not is_line_number_ruler(box(["2019", "2020", "2023", "1998", "2001"]))
    assert not is_line_number_ruler(box(["Results", "12", "13", "14", "The end"]))
    assert is_decorative("❙❚❘❙❚❘❙❚❘❙ ❚❘❙❚")
    assert is_decorative("* * *")
    assert not is_decorative("— 12 —") and not is_decorative("α")


def test_a_right_to_left_row_split_into_pieces_reads_whole_with_its_number() -> None:
    from sheaf.domain.pdf.structure import TextBox, TextLine, merge_right_to_left_rows

    def piece(text: str, x0: float, x1: float, y: float = 700) -> TextBox:
        line = TextLine(text=text, size=14, font="BNazaninBold", bold=True, chars=len(text),
                        bbox=(x0, y, x1, y + 14))
        return TextBox(page=1, lines=(line,), bbox=line.bbox)

    # Layout analysis gives a heading "3- پذيرش در بورس" as its number and its words, and
    # "اميدنامه" as two touching pieces; a piece with a space glyph at the joint is a word
    # boundary.
    row = [piece("پذيرش در بورس", 409, 488), piece("3- ", 488, 506)]
    assert [b.text for b in merge_right_to_left_rows(row)] == ["3- پذيرش در بورس"]
    word = [piece("\nنامه پذيرش ", 134, 250), piece("\nاميد", 250, 268)]
    assert [b.text for b in merge_right_to_left_rows(word)] == ["اميدنامه پذيرش"]
    spaced = [piece(" بازار", 134, 250), piece("در", 250, 268)]
    assert [b.text for b in merge_right_to_left_rows(spaced)] == ["در بازار"]
    # Latin pieces and pieces on other rows stay apart.
    latin = [piece("Results", 72, 120), piece("2.1", 130, 150)]
    assert len(merge_right_to_left_rows(latin)) == 2
    apart = [piece("پذيرش در بورس", 409, 488), piece("3- ", 488, 506, y=650)]
    assert len(merge_right_to_left_rows(apart)) == 2
