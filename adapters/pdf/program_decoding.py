"""Glyphs read through the embedded font program where the PDF's own maps fail (ADR-0032).

pdfminer reads a glyph's text from the font's ToUnicode map, else from its encoding.
Where that reading is missing or unusable (private-use, control or replacement code
points, `(cid:N)` placeholders), or where the encoding is the program's own (a simple
font with no /Encoding that is symbolic, or a CFF program with an encoding of its own),
the program's reading (`font_programs`) stands instead. A usable ToUnicode entry always
wins: it is the producer's word on what the glyph means. The result is text like any
other and the garbage check judges it per font and page (ADR-0013): a program whose
names and cmap say nothing leaves the font flagged as before.

The program is read only for fonts that need it, so most pages never load fontTools.
"""

from __future__ import annotations

import re
from typing import Any

from pdfminer.cmapdb import FileUnicodeMap
from pdfminer.pdffont import PDFCIDFont, PDFFont, PDFSimpleFont, PDFType3Font
from pdfminer.pdftypes import dict_value, int_value, list_value, resolve1, stream_value

from .font_programs import ProgramReading, read_program, usable_text

SYMBOLIC_FLAG = 4


def _producers_word(text: object) -> bool:
    """Whether a ToUnicode entry says what the glyph is: usable text, or nothing at all
    on purpose (an empty entry: a shaped cluster's other glyphs carry its text)."""
    return isinstance(text, str) and (text == "" or usable_text(text))
_CID_NAME = re.compile(r"cid(\d+)$")
_PROGRAM_KEYS = ("FontFile2", "FontFile3")


def _program(spec: dict[str, Any]) -> ProgramReading | None:
    descriptor = dict_value(spec.get("FontDescriptor", {}))
    for key in _PROGRAM_KEYS:
        if key in descriptor:
            stream = stream_value(descriptor[key])
            return read_program(stream.get_data(), key)
    return None


def _has_program(spec: dict[str, Any]) -> bool:
    descriptor = dict_value(spec.get("FontDescriptor", {}))
    return any(key in descriptor for key in _PROGRAM_KEYS)


def _symbolic(spec: dict[str, Any]) -> bool:
    descriptor = dict_value(spec.get("FontDescriptor", {}))
    return bool(int_value(descriptor.get("Flags", 0) or 0) & SYMBOLIC_FLAG)


def _used_codes(spec: dict[str, Any]) -> list[int]:
    """The codes a simple font gives a width to (a subset's glyphs), else all 256."""
    widths = list_value(spec.get("Widths", []) or [])
    if not widths:
        return list(range(256))
    first = int_value(spec.get("FirstChar", 0) or 0)
    return [first + i for i, width in enumerate(widths)
            if isinstance(resolve1(width), int | float) and resolve1(width)]


def decode_simple_font(font: PDFSimpleFont, spec: dict[str, Any],
                       unreadable: dict[int, str]) -> None:
    """Put the program's reading into a simple font's code table where the PDF's reading
    fails, in place; `unreadable` are /Differences names the glyph list did not know."""
    if isinstance(font, PDFType3Font) or not _has_program(spec):
        return
    tounicode = getattr(font.unicode_map, "cid2unichr", None)
    if not isinstance(tounicode, dict):
        tounicode = {}
    implicit = "Encoding" not in spec and (_symbolic(spec) or "FontFile3" in dict_value(
        spec.get("FontDescriptor", {})))

    def reading(code: int) -> str | None:
        mapped = tounicode.get(code)
        if isinstance(mapped, str) and _producers_word(mapped):
            return mapped
        current = font.cid2unicode.get(code)
        return current if isinstance(current, str) and usable_text(current) else None

    failing = [code for code in _used_codes(spec) if reading(code) is None]
    if not (failing or unreadable or implicit):
        return
    program = _program(spec)
    if program is None:
        return
    table = dict(font.cid2unicode)
    for code, name in unreadable.items():
        gid = program.glyph_names.get(name)
        if gid is not None and gid in program.by_glyph:
            table[code] = program.by_glyph[gid]
    if implicit:
        table.update(program.by_code)
    for code in failing:
        if code in program.by_code and not (code in table and usable_text(table[code])):
            table[code] = program.by_code[code]
    font.cid2unicode = table
    for code in list(tounicode):
        # A ToUnicode entry that reads as nothing gives way to the table's reading.
        if not _producers_word(tounicode[code]) and code in table:
            tounicode[code] = table[code]


def decode_cid_font(font: PDFFont, spec: dict[str, Any]) -> None:
    """Fill a CID font's Unicode map from its program, in place (`spec` is the
    descendant CIDFont's dictionary): where a ToUnicode map has no usable entry, and
    wholly where there is no ToUnicode (pdfminer's own reading of a TrueType `cmap`
    gets some segment layouts wrong and knows no glyph names)."""
    if not isinstance(font, PDFCIDFont) or not _has_program(spec):
        return
    mapping = font.unicode_map
    entries = getattr(mapping, "cid2unichr", None)
    producer_map = "ToUnicode" in spec
    if mapping is not None and not isinstance(entries, dict):
        return  # an Identity or a registry's predefined map (Adobe-Japan1): reliable
    if producer_map and isinstance(entries, dict) and all(
            _producers_word(text) for text in entries.values()):
        return
    program = _program(spec)
    if program is None or not program.by_glyph:
        return
    if not isinstance(entries, dict):
        mapping = FileUnicodeMap()
        entries = mapping.cid2unichr
    for cid, gid in _cids_to_glyphs(spec, program).items():
        text = entries.get(cid)
        if gid in program.by_glyph and not (producer_map and _producers_word(text)):
            entries[cid] = program.by_glyph[gid]
    font.unicode_map = mapping


def _cids_to_glyphs(spec: dict[str, Any], program: ProgramReading) -> dict[int, int]:
    """CID -> glyph index: a CID-keyed CFF's charset names each glyph `cidNNNNN`; a
    TrueType CIDFont has its /CIDToGIDMap (a stream of 2-byte indices, or Identity)."""
    keyed = {int(match.group(1)): gid for name, gid in program.glyph_names.items()
             if (match := _CID_NAME.match(name))}
    if keyed:
        return keyed
    stored = resolve1(spec.get("CIDToGIDMap"))
    if stored is not None and hasattr(stored, "get_data"):
        data = stream_value(stored).get_data()
        return {cid: gid for cid in range(len(data) // 2)
                if (gid := int.from_bytes(data[2 * cid:2 * cid + 2], "big"))}
    return {gid: gid for gid in program.by_glyph}
