"""Displayed formulas told from prose by the glyphs they are made of."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.markdown_rendering import render_markdown, render_plain
from sheaf.domain.pdf.formulas import (
    find_formulas,
    is_equation_number,
    is_math_font,
    lift_formulas,
    split_display_lines,
)
from sheaf.domain.pdf.structure import TextBox, TextLine


def line(text: str, x: float, y: float, *, math: int = 0, font: str = "Times-Roman",
         size: float = 10.0) -> TextLine:
    chars = len(text.replace(" ", ""))
    return TextLine(text=text, size=size, font=font, bold=False, chars=chars,
                    bbox=(x, y, x + 5 * len(text), y + size), math=math)


def box(*lines: TextLine) -> TextBox:
    return TextBox(page=1, lines=lines, bbox=(min(x.bbox[0] for x in lines),
                                              min(x.bbox[1] for x in lines),
                                              max(x.bbox[2] for x in lines),
                                              max(x.bbox[3] for x in lines)))


def test_math_fonts_are_known_by_name_whatever_their_subset_prefix() -> None:
    for name in ("ABCDEF+CMMI10", "CMSY7", "XYZ+CMEX10", "MSBM10", "CambriaMath",
                 "STIXGeneral-Italic", "Symbol", "LMMathItalic10-Regular", "MT-Extra"):
        assert is_math_font(name), name
    for name in ("Times-Roman", "ABCDEF+CMR10", "NimbusRomNo9L-Regu", "Helvetica-Bold",
                 "CMBX12", "ArialMT"):
        assert not is_math_font(name), name


def test_equation_numbers() -> None:
    for text in ("(3)", "(12)", "(2.14)", "(A.1)", "(4b)", "( 7 )", "(iv)"):
        assert is_equation_number(text), text
    for text in ("(see above)", "3", "(2019)", "[3]", "(a, b)"):
        assert not is_equation_number(text), text


def test_scattered_pieces_of_one_equation_become_one_formula_in_rows() -> None:
    pieces = [box(line("max", 200, 500)), box(line("θi", 216, 496, math=2, size=7)),
              box(line("Σ", 230, 500, math=1)), box(line("f(x) = 0", 240, 500, math=1)),
              box(line("(3)", 500, 500))]
    [formula] = find_formulas(pieces, 12.0)
    assert formula.text == "max θi Σ f(x) = 0"
    assert formula.label == "3"
    assert formula.members == (0, 1, 2, 3, 4)


def test_a_display_line_inside_a_paragraph_box_is_cut_out() -> None:
    prose = [line("The model is trained on the data set we describe below", 72, 700 - 12 * i)
             for i in range(3)]
    shown = line("L = Σ log p", 200, 664, math=7)
    after = [line("where the sum runs over all the examples of the data", 72, 652 - 12 * i)
             for i in range(2)]
    parts = split_display_lines(box(*prose, shown, *after))
    assert [len(p.lines) for p in parts] == [3, 1, 2]
    kept, formulas = lift_formulas(parts)
    assert [f.text for f in formulas] == ["L = Σ log p"]
    assert len(kept) == 2


def test_an_inline_formula_that_shares_its_row_with_prose_is_not_cut_out() -> None:
    prose = line("of tokens w", 72, 656)
    raised = line("1 , w(i)", 150, 654, math=5)
    rest = [line("and some more prose text that follows here", 72, 640 - 12 * i)
            for i in range(2)]
    assert len(split_display_lines(box(prose, raised, *rest))) == 1


@given(st.lists(st.sampled_from(["model", "the", "results", "show", "that", "data",
                                 "training", "improves", "accuracy", "over", "baseline"]),
                min_size=2, max_size=12))
def test_prose_is_never_a_formula(words: list[str]) -> None:
    text = " ".join(words)
    if sum(len(w) >= 3 for w in words) < 2:
        return
    boxes = [box(line(text, 72, 500)), box(line("(3)", 500, 500))]
    assert not any(f.members == (0,) for f in find_formulas(boxes, 12.0))
    assert not find_formulas([box(line(text, 72, 500))], 12.0)


def test_a_formula_renders_fenced_with_its_number() -> None:
    draft = BlockDraft(BlockKind.FORMULA, text="a = b *c* d", label="3")
    assert render_markdown(draft) == "```formula\na = b *c* d (3)\n```"
    assert render_plain(draft) == "a = b *c* d (3)"
