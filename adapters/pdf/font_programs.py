"""What an embedded font program says its glyphs are, read with fontTools (ADR-0032).

A font whose ToUnicode map is missing, or maps glyphs to private-use or control code
points, still names its glyphs in its own program: a TrueType font's `cmap` subtables
((3,1) and (3,10) give Unicode straight; (3,0) symbol and (1,0) Mac Roman give the codes
the font was built for) and its `post` glyph names; a CFF font's charset (glyph names)
and built-in encoding. This module reads those into two tables, by glyph index and, for
a simple font, by character code; `program_decoding` decides where they apply.

Glyph names are read by the Adobe Glyph List's rules (`uniXXXX`, `uXXXXX`, `f_f_i`,
`a.sc`); names that only number a glyph (`g12`, `glyph00012`, `cid00012`, `index12`)
say nothing about its text and are skipped, so the glyph is read through `cmap` instead.
"""

from __future__ import annotations

import io
import logging
import re
import struct
from typing import Any

from attrs import frozen
from pdfminer.encodingdb import name2unicode

logging.getLogger("fontTools").setLevel(logging.CRITICAL)

MAX_PROGRAM_BYTES = 16 << 20
"""A font program larger than this is not read (a CJK font is a few MB)."""

_NUMBERED_NAME = re.compile(r"(?:g|gl|glyph|gid|cid|index|afii\d*x|c|G)\d+$|\.notdef$|\.null$")
_SYMBOL_PAGE = 0xF000


@frozen
class ProgramReading:
    """A font program's own reading of its glyphs."""

    by_glyph: dict[int, str]
    """Glyph index -> text, for the glyphs whose text the program tells."""
    by_code: dict[int, str]
    """Character code (0-255) -> text through the program's built-in encoding or its
    symbol/Mac cmap; empty when the program has no encoding of its own."""
    glyph_names: dict[str, int]
    """Glyph name -> glyph index (so a /Differences name the glyph list does not know can
    still be found)."""


def glyph_name_text(name: str) -> str | None:
    """The text a glyph name stands for by the Adobe Glyph List's rules; None for names
    that only number a glyph, or name nothing the list knows."""
    if not name or _NUMBERED_NAME.match(name):
        return None
    try:
        text = name2unicode(name)
    except (KeyError, ValueError, OverflowError):
        return None
    return text if text and usable_text(text) else None


def usable_text(text: str) -> bool:
    """Whether `text` is something a reader can read: not empty, and no private-use,
    surrogate, noncharacter or control code point (tab and newlines aside)."""
    for char in text:
        point = ord(char)
        if (0xE000 <= point <= 0xF8FF or point >= 0xF0000 or 0xD800 <= point <= 0xDFFF
                or point in (0xFFFE, 0xFFFF, 0xFFFD)
                or (point < 32 and char not in "\t\n\r") or 0x7F <= point < 0xA0):
            return False
    return bool(text)


def read_program(data: bytes, kind: str) -> ProgramReading | None:
    """The reading of an embedded font program: `kind` is the descriptor's key
    (`FontFile2` TrueType, `FontFile3` CFF or OpenType). None when the program cannot be
    read (a damaged or truncated program is a font pdfminer's reading stands for)."""
    if not data or len(data) > MAX_PROGRAM_BYTES:
        return None
    from fontTools.ttLib import TTLibError

    try:
        if kind == "FontFile3" and not data.startswith((b"OTTO", b"\x00\x01\x00\x00",
                                                         b"true")):
            return _bare_cff(data)
        return _sfnt(data)
    except (TTLibError, AssertionError, AttributeError, EOFError, IndexError, KeyError,
            LookupError, OverflowError, RecursionError, TypeError, ValueError,
            struct.error, UnicodeDecodeError) as exc:
        logging.getLogger(__name__).debug("font program unreadable: %r", exc)
        return None


def _sfnt(data: bytes) -> ProgramReading:
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(data), lazy=True, recalcBBoxes=False, recalcTimestamp=False)
    order = font.getGlyphOrder()
    gid_of = {name: gid for gid, name in enumerate(order)}
    by_glyph: dict[int, str] = {}
    symbol: dict[int, int] = {}
    mac: dict[int, int] = {}
    if "cmap" in font:
        for table in font["cmap"].tables:
            platform, encoding = table.platformID, table.platEncID
            unicode_table = platform == 0 or (platform == 3 and encoding in (1, 10))
            for code, name in sorted(table.cmap.items()):
                gid = gid_of.get(name)
                if gid is None:
                    continue
                if unicode_table:
                    char = chr(code) if code <= 0x10FFFF else ""
                    # The lowest ordinary code point wins: a glyph mapped from both
                    # U+0020 and U+00A0 is a space.
                    if usable_text(char) and gid not in by_glyph:
                        by_glyph[gid] = char
                elif platform == 3 and encoding == 0:
                    # Symbol cmaps put code c at U+F000 + c (some at c itself).
                    byte = code - _SYMBOL_PAGE if code >= _SYMBOL_PAGE else code
                    if 0 <= byte < 256:
                        symbol.setdefault(byte, gid)
                elif platform == 1 and encoding == 0 and code < 256:
                    mac.setdefault(code, gid)
    for gid, name in enumerate(order):
        if gid not in by_glyph and (text := glyph_name_text(name)) is not None:
            by_glyph[gid] = text
    # A symbol or Mac cmap says which glyph a code draws; its text is that glyph's, else
    # (Word's symbolic subsets of text fonts) the code read as Windows-1252 or Mac Roman
    # text, which the garbage check then judges like any other reading.
    by_code: dict[int, str] = {}
    for table, codec in ((mac, "mac_roman"), (symbol, "cp1252")):
        for code, gid in table.items():
            text = by_glyph.get(gid) or _code_text(code, codec)
            if text is not None:
                by_code[code] = text
                by_glyph.setdefault(gid, text)
    return ProgramReading(by_glyph=by_glyph, by_code=by_code, glyph_names=gid_of)


def _code_text(code: int, codec: str) -> str | None:
    if code < 32 or code > 255:
        return None
    try:
        text = bytes([code]).decode(codec)
    except UnicodeDecodeError:
        return None
    return text if usable_text(text) else None


def _bare_cff(data: bytes) -> ProgramReading:
    from fontTools.cffLib import CFFFontSet

    fonts = CFFFontSet()
    fonts.decompile(io.BytesIO(data), None)
    top: Any = fonts[fonts.fontNames[0]] if fonts.fontNames else None
    if top is None:
        return ProgramReading(by_glyph={}, by_code={}, glyph_names={})
    charset: list[str] = list(getattr(top, "charset", None) or [])
    gid_of = {name: gid for gid, name in enumerate(charset)}
    by_glyph = {gid: text for gid, name in enumerate(charset)
                if (text := glyph_name_text(name)) is not None}
    by_code: dict[int, str] = {}
    encoding = getattr(top, "Encoding", None)
    # A CID-keyed font has no encoding; StandardEncoding is what a PDF reader assumes
    # already; only a custom encoding (a list of 256 names) says something new.
    if isinstance(encoding, list) and not hasattr(top, "ROS"):
        for code, name in enumerate(encoding[:256]):
            if name != ".notdef" and (gid := gid_of.get(name)) is not None \
                    and gid in by_glyph:
                by_code[code] = by_glyph[gid]
    return ProgramReading(by_glyph=by_glyph, by_code=by_code, glyph_names=gid_of)
