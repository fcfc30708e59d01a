"""Content instructions read token by token (`qpdf_content.instructions`) against qpdf's
own grouping of the same bytes (`pikepdf.parse_content_stream`)."""

from __future__ import annotations

from typing import Any

import pikepdf
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.qpdf_content import _operand, instructions
from sheaf.adapters.pdf.stream_bounds import token_count

_NUMBERS = st.one_of(st.integers(-10_000, 10_000).map(str),
                     st.floats(-1e4, 1e4, allow_nan=False).map(lambda x: f"{x:.4f}"))
_NAMES = st.sampled_from(["/F1", "/Im0", "/GS1", "/P", "/Span"])
_STRINGS = st.text(st.characters(min_codepoint=32, max_codepoint=126,
                                 blacklist_characters="()\\"), max_size=8
                   ).map(lambda t: f"({t})")
_SCALARS = st.one_of(_NUMBERS, _NAMES, _STRINGS, st.sampled_from(["true", "false", "null"]))
_OPERANDS = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=4).map(lambda items: "[" + " ".join(items) + "]"),
    st.lists(st.tuples(_NAMES, _SCALARS), max_size=3).map(
        lambda pairs: "<<" + " ".join(f"{k} {v}" for k, v in pairs) + ">>"))
_OPERATORS = st.sampled_from(["Tj", "TJ", "Tf", "Td", "cm", "re", "m", "l", "S", "q", "Q",
                              "BT", "ET", "Do", "BDC", "EMC", "d", "w", "'", '"', "T*"])
_INLINE_IMAGE = "BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xff EI"
_INSTRUCTIONS = st.one_of(
    st.tuples(st.lists(_OPERANDS, max_size=5), _OPERATORS).map(
        lambda pair: " ".join([*pair[0], pair[1]])),
    st.just(_INLINE_IMAGE))


def _grouped(data: bytes) -> list[tuple[str, list[Any]]]:
    """What the previous reading through `parse_content_stream` gave."""
    with pikepdf.Pdf.new() as scratch:
        return [(str(instruction.operator), [_operand(v) for v in instruction.operands])
                for instruction in pikepdf.parse_content_stream(pikepdf.Stream(scratch, data))
                if not isinstance(instruction, pikepdf.ContentStreamInlineImage)]


@settings(max_examples=150, deadline=None)
@given(st.lists(_INSTRUCTIONS, max_size=30))
def test_token_by_token_reading_equals_qpdfs_grouping(parts: list[str]) -> None:
    data = "\n".join(parts).encode("latin-1")
    assert instructions(data) == _grouped(data)


def test_inline_images_are_left_out_and_what_follows_them_is_read() -> None:
    data = f"q {_INLINE_IMAGE} Q 1 0 0 1 5 5 cm [(a) -20 (b)] TJ".encode("latin-1")
    assert instructions(data) == [("q", []), ("Q", []), ("cm", [1, 0, 0, 1, 5, 5]),
                                  ("TJ", [[b"a", -20, b"b"]])]


@settings(max_examples=150, deadline=None)
@given(st.lists(_INSTRUCTIONS, max_size=30))
def test_the_token_count_bounds_the_operands_and_operators_run(parts: list[str]) -> None:
    # The PDFium engine's pre-check counts tokens against the page's operation limit:
    # never fewer than the pdfminer engine's interpreter is given.
    data = "\n".join(parts).encode("latin-1")
    run = sum(1 + len(operands) for _operator, operands in instructions(data))
    assert token_count(data) >= run
