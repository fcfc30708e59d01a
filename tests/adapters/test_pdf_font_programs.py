"""Glyphs read through the embedded font program when the PDF's maps do not say them.

Every PDF here is generated: a font program built with fontTools (or a Type 1 by hand)
is embedded without a usable ToUnicode map, as word processors and old typesetters
leave them, and the page's text must come out as written, with its word gaps."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.font_programs import glyph_name_text, read_program
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.document.markdown_rendering import document_plain_text
from tests.embedded_fonts import (
    alphabet,
    cff_program,
    cid_font_pdf,
    simple_font_pdf,
    truetype_program,
)
from tests.property_examples import examples

EXTRACTOR = PdfminerExtractor(time_budget=30)
LINES = ["The Theory of Reasoned Action explains intentions from attitudes,",
         "and Perceived Ease of Use with Perceived Usefulness shapes adoption",
         "of new technology (Davis 1989, Venkatesh 2003) in many settings."]
HEADING = "Readable Heading"


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def plain(data: bytes) -> tuple[str, tuple[str, ...]]:
    document = EXTRACTOR.extract_sync(data)
    return document_plain_text(document), document.notes


def _code_table(lines: list[str], *, spaces: bool = True) -> dict[str, int]:
    return {c: i + 1 for i, c in enumerate(alphabet(lines, with_space=spaces))}


READABLE_PROGRAMS = {
    "truetype symbolic, (3,0) cmap, post names": dict(program="truetype", cmap="symbol"),
    "truetype symbolic, (1,0) cmap, post names": dict(program="truetype", cmap="mac"),
    "cff, custom built-in encoding, glyph names only": dict(program="cff"),
    "type1, custom built-in encoding": dict(program="type1"),
}


@pytest.mark.parametrize("spaces", [True, False], ids=["space glyphs", "no space glyphs"])
@pytest.mark.parametrize("variant", READABLE_PROGRAMS, ids=list(READABLE_PROGRAMS))
def test_a_simple_font_without_tounicode_reads_through_its_program(variant: str,
                                                                   spaces: bool) -> None:
    text, notes = plain(simple_font_pdf(LINES, spaces=spaces, heading=HEADING,
                                        **READABLE_PROGRAMS[variant]))  # type: ignore[arg-type]
    assert words(text) == words(HEADING + " " + " ".join(LINES))
    assert not [n for n in notes if n.startswith(("undecodable_text", "text_recovered"))]


CID_VARIANTS = {
    "(3,0) cmap and post names": dict(cmap="symbol"),
    "(3,1) cmap, no post names": dict(cmap="unicode", glyph_names="none"),
    "(3,1) cmap, numbered post names": dict(cmap="unicode", glyph_names="numbered"),
    "(1,0) cmap and post names": dict(cmap="mac"),
    "post names only, no cmap": dict(cmap="none"),
    "a CIDToGIDMap stream": dict(cmap="unicode", glyph_names="none", cid_to_gid=True),
}


@pytest.mark.parametrize("variant", CID_VARIANTS, ids=list(CID_VARIANTS))
def test_a_truetype_cidfont_without_tounicode_reads_through_its_program(variant: str) -> None:
    text, notes = plain(cid_font_pdf(LINES, heading=HEADING,
                                     **CID_VARIANTS[variant]))  # type: ignore[arg-type]
    assert words(text) == words(HEADING + " " + " ".join(LINES))
    assert not [n for n in notes if n.startswith("undecodable_text")]


def test_a_tounicode_map_to_private_use_points_gives_way_to_the_program() -> None:
    codes = _code_table(LINES)
    private = {code: chr(0xE000 + code) for code in codes.values()}
    for data in (cid_font_pdf(LINES, to_unicode=private, heading=HEADING),
                 simple_font_pdf(LINES, program="truetype", to_unicode=private,
                                 heading=HEADING)):
        text, _ = plain(data)
        assert words(text) == words(HEADING + " " + " ".join(LINES))


def test_a_usable_tounicode_entry_is_the_producers_word_over_the_program() -> None:
    # The map reads every glyph as its upper case: the program's names say otherwise.
    codes = _code_table(LINES)
    upper = {code: char.upper() for char, code in codes.items()}
    for data in (cid_font_pdf(LINES, to_unicode=upper, heading=HEADING),
                 simple_font_pdf(LINES, program="truetype", to_unicode=upper,
                                 heading=HEADING)):
        text, _ = plain(data)
        assert words(text) == words(HEADING + " " + " ".join(LINES).upper())


def test_differences_names_the_glyph_list_lacks_are_found_in_the_program() -> None:
    # Glyphs named g1, g2... in both /Differences and the program's post table; the
    # program's (3,1) cmap says what each is.
    chars = alphabet(LINES, with_space=True)
    data = simple_font_pdf(LINES, program="truetype", cmap="unicode",
                           glyph_names="numbered", heading=HEADING,
                           differences=[f"g{i + 1}" for i in range(len(chars))])
    text, _ = plain(data)
    assert words(text) == words(HEADING + " " + " ".join(LINES))


def test_type1_differences_with_agl_forms_read_as_their_characters() -> None:
    lines = ["Office staff fill the affine form quickly and finish."]
    chars = alphabet(lines, with_space=True)
    # uniXXXX, uXXXX and suffixed names, as Type 1 subsets from several tools name them.
    forms = [f"uni{ord(c):04X}" if i % 3 == 0 else f"u{ord(c):04X}" if i % 3 == 1
             else f"{'space' if c == ' ' else c}.alt" for i, c in enumerate(chars)]
    text, _ = plain(simple_font_pdf(lines, program="type1", differences=forms,
                                    heading=HEADING))
    assert words(text) == words(HEADING + " " + lines[0])


def test_a_program_that_names_nothing_leaves_the_font_flagged_not_guessed() -> None:
    # No cmap, no glyph names: nothing says what glyph 5 is, and no text is made up.
    text, notes = plain(cid_font_pdf(LINES, cmap="none", glyph_names="none",
                                     heading=HEADING))
    assert words(text) == words(HEADING)
    assert any(n.startswith("undecodable_text: page 1") for n in notes)


def test_an_unmapped_space_glyph_still_parts_the_words_it_stands_between() -> None:
    # ToUnicode names every glyph but the space (or maps it to a control code), and the
    # program says nothing: the words must not be glued ("TheTheoryofReasonedAction").
    codes = _code_table(LINES)
    letters = {code: char for char, code in codes.items() if char != " "}
    for to_unicode in (letters, {**letters, codes[" "]: "\x03"}):
        for data in (cid_font_pdf(LINES, cmap="none", glyph_names="none",
                                  to_unicode=to_unicode, heading=HEADING),
                     simple_font_pdf(LINES, program="truetype", cmap="none",
                                     glyph_names="none", to_unicode=to_unicode,
                                     heading=HEADING)):
            text, _ = plain(data)
            assert words(text) == words(HEADING + " " + " ".join(LINES))


# Words of writing (the garbage check judges letter distributions, so a page of
# random letters is rightly not text), in any order, with numbers among them.
_VOCABULARY = ("the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with",
               "was", "on", "be", "by", "this", "are", "from", "at", "which", "model",
               "data", "results", "method", "system", "analysis", "based", "Table",
               "Figure", "using", "between", "users", "study", "effect", "intention",
               "behaviour", "adoption", "were", "these", "than", "Section", "values",
               "our", "approach", "shown", "each", "Research", "Journal")
_WORD = st.one_of(st.sampled_from(_VOCABULARY), st.integers(0, 2024).map(str))
_LINE = st.lists(_WORD, min_size=3, max_size=10).map(" ".join)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_LINE, min_size=2, max_size=5),
       kind=st.sampled_from(["truetype-symbol", "truetype-mac", "cff", "type1",
                             "cid-symbol", "cid-unicode", "cid-names"]),
       spaces=st.booleans())
def test_property_any_text_in_any_such_font_comes_back_word_for_word(
        lines: list[str], kind: str, spaces: bool) -> None:
    if kind.startswith("cid"):
        cmap = {"cid-symbol": "symbol", "cid-unicode": "unicode", "cid-names": "none"}[kind]
        data = cid_font_pdf(lines, cmap=cmap, spaces=spaces, heading=HEADING,
                            glyph_names="none" if kind == "cid-unicode" else "agl")
    else:
        program, _, cmap = kind.partition("-")
        data = simple_font_pdf(lines, program=program, cmap=cmap or "symbol",
                               spaces=spaces, heading=HEADING)
    text, _ = plain(data)
    assert words(text) == words(HEADING + " " + " ".join(lines))


@pytest.mark.parametrize(("name", "expected"), [
    ("A", "A"), ("uni00E9", "é"), ("u1D49C", "\U0001d49c"), ("f_f_i", "ffi"),
    ("a.sc", "a"), ("Eacute.alt2", "É"), ("g12", None), ("glyph00012", None),
    ("cid01234", None), ("index7", None), (".notdef", None), ("uniE001", None),
    ("nonsense", None)])
def test_glyph_names_read_by_the_glyph_list_rules(name: str, expected: str | None) -> None:
    assert glyph_name_text(name) == expected


@pytest.mark.parametrize("kind", ["FontFile2", "FontFile3"])
def test_damaged_or_foreign_programs_are_not_read(kind: str) -> None:
    program = truetype_program(list("abc"), cmap="unicode", glyph_names="agl")
    cff = cff_program(list("abc"), encoding=True)
    good = program if kind == "FontFile2" else cff
    for data in (b"", b"\x00" * 40, good[:len(good) // 3], b"%!PS-AdobeFont-1.0 junk"):
        assert read_program(data, kind) is None or isinstance(
            read_program(data, kind).by_glyph, dict)
    reading = read_program(good, kind)
    assert reading is not None
    assert set(reading.by_glyph.values()) == {"a", "b", "c"}


def test_empty_tounicode_entries_of_a_shaped_cluster_stay_empty() -> None:
    # A shaping producer gives one glyph the cluster's whole text and the others none
    # (`<03f2> <>`): the program must not read those again, nor part the words there.
    line = "Theory of Reasoned Action"
    codes = _code_table([line])
    first = codes[line[0]]
    to_unicode = {code: (line if code == first else "") for code in codes.values()}
    text, _ = plain(cid_font_pdf([line], to_unicode=to_unicode, heading=HEADING))
    assert words(text) == words(HEADING + " " + line)
