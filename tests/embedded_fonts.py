"""Generated PDFs whose fonts carry their glyphs' meaning only in the embedded program.

Each builder makes a small real font program with fontTools (TrueType, CFF) or by hand
(Type 1), with glyphs named and mapped as producers do when they leave out ToUnicode:
a Word-style symbolic TrueType subset (codes 1, 2, 3... through a (3,0) or (1,0) cmap),
a TrueType CIDFont with Identity-H and no ToUnicode, a CFF with a custom built-in
encoding and glyph names only, a Type 1 with a custom encoding. The page draws the
given lines with those codes, with or without space glyphs.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pikepdf
from fontTools.fontBuilder import FontBuilder
from fontTools.misc import eexec
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib.tables._c_m_a_p import CmapSubtable

ADVANCE = 500
UNITS = 1000

_NAMES = {" ": "space", ".": "period", ",": "comma", "-": "hyphen", "'": "quotesingle",
          ":": "colon", "(": "parenleft", ")": "parenright"}


def glyph_name(char: str) -> str:
    """The Adobe Glyph List name of `char` (letters and digits by themselves)."""
    if char in _NAMES:
        return _NAMES[char]
    if char.isascii() and char.isalpha():
        return char
    digits = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
              "nine")
    if char.isdigit() and char.isascii():
        return digits[int(char)]
    return f"uni{ord(char):04X}"


def alphabet(lines: Sequence[str], *, with_space: bool) -> list[str]:
    """The characters the lines draw, in first-use order (as a subsetter numbers them)."""
    seen: dict[str, None] = {}
    for line in lines:
        for char in line:
            if char != " " or with_space:
                seen.setdefault(char)
    return list(seen)


def _box_glyph() -> object:
    pen = TTGlyphPen(None)
    pen.moveTo((50, 0))
    pen.lineTo((450, 0))
    pen.lineTo((450, 700))
    pen.lineTo((50, 700))
    pen.closePath()
    return pen.glyph()


def truetype_program(chars: Sequence[str], *, cmap: str, glyph_names: str) -> bytes:
    """A TrueType program with a glyph per char (glyph 0 .notdef). `cmap` "unicode"
    maps each char's code point (3,1); "symbol" maps codes 1, 2, 3... at U+F001...
    (3,0); "mac" maps codes 1, 2, 3... (1,0); "none" has no cmap at all. `glyph_names`
    "agl" names glyphs by the glyph list in a format 2 post table, "numbered" names them
    g1, g2... there, "none" writes a format 3 post table (no names)."""
    names = [".notdef", *(glyph_name(c) if glyph_names == "agl" else f"g{i + 1}"
                          for i, c in enumerate(chars))]
    builder = FontBuilder(UNITS, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({ord(c): names[i + 1] for i, c in enumerate(chars)}
                              if cmap == "unicode" else {})
    builder.setupGlyf({name: _box_glyph() for name in names})
    builder.setupHorizontalMetrics({name: (ADVANCE, 50) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Generated", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost(keepGlyphNames=glyph_names != "none")
    table = builder.font["cmap"]
    if cmap in ("symbol", "mac"):
        subtable = CmapSubtable.newSubtable(4 if cmap == "symbol" else 6)
        subtable.platformID, subtable.platEncID, subtable.language = (
            (3, 0, 0) if cmap == "symbol" else (1, 0, 0))
        base = 0xF000 if cmap == "symbol" else 0
        subtable.cmap = {base + i + 1: names[i + 1] for i in range(len(chars))}
        table.tables = [subtable]
    elif cmap == "none":
        del builder.font["cmap"]
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


def cff_program(chars: Sequence[str], *, encoding: bool) -> bytes:
    """A bare CFF (Type1C) program naming each char's glyph by its glyph-list name, with
    a built-in encoding of codes 1, 2, 3... when `encoding`, else StandardEncoding."""
    names = [".notdef", *(glyph_name(c) for c in chars)]
    builder = FontBuilder(UNITS, isTTF=False)
    builder.setupGlyphOrder(names)
    strings = {}
    for name in names:
        pen = T2CharStringPen(ADVANCE, None)
        pen.moveTo((50, 0))
        pen.lineTo((450, 0))
        pen.lineTo((450, 700))
        pen.closePath()
        strings[name] = pen.getCharString()
    builder.setupCFF("GeneratedCFF", {"FullName": "Generated CFF"}, strings, {})
    builder.setupHorizontalMetrics({name: (ADVANCE, 50) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    font_set = builder.font["CFF "].cff
    top = font_set[font_set.fontNames[0]]
    if encoding:
        table = [".notdef"] * 256
        for i, name in enumerate(names[1:], start=1):
            table[i] = name
        top.Encoding = table
    out = io.BytesIO()
    font_set.compile(out, builder.font)
    return out.getvalue()


def _type1_number(value: int) -> bytes:
    if -107 <= value <= 107:
        return bytes([value + 139])
    assert 108 <= value <= 1131
    return bytes([(value - 108) // 256 + 247, (value - 108) % 256])


def type1_program(chars: Sequence[str], *, names: Sequence[str] | None = None) -> tuple[
        bytes, int, int]:
    """A Type 1 program whose built-in encoding puts `names` (the chars' glyph-list names
    by default) at codes 1, 2, 3...; with its /Length1 and /Length2."""
    glyph_names = list(names or [glyph_name(c) for c in chars])
    encoding = "".join(f"dup {i} /{name} put\n" for i, name in enumerate(glyph_names, 1))
    clear = ("%!PS-AdobeFont-1.0: GeneratedType1 001.000\n"
             "11 dict begin\n/FontName /GeneratedType1 def\n/PaintType 0 def\n"
             "/FontType 1 def\n/FontMatrix [0.001 0 0 0.001 0 0] readonly def\n"
             "/FontBBox {0 0 500 700} readonly def\n/Encoding 256 array\n"
             "0 1 255 {1 index exch /.notdef put} for\n" + encoding +
             "readonly def\ncurrentdict end\ncurrentfile eexec\n").encode("ascii")
    # Each glyph: `0 500 hsbw endchar`, encrypted as charstrings are (lenIV 4).
    body = _type1_number(0) + _type1_number(ADVANCE) + bytes([13, 14])
    charstring, _ = eexec.encrypt(b"\0\0\0\0" + body, 4330)
    private = [b"dup /Private 8 dict dup begin\n/RD{string currentfile exch readstring pop}"
               b"executeonly def\n/ND{noaccess def}executeonly def\n"
               b"/NP{noaccess put}executeonly def\n/lenIV 4 def\n/BlueValues [] def\n"
               b"/MinFeature{16 16} def\n/password 5839 def\n",
               f"2 index /CharStrings {len(glyph_names) + 1} dict dup begin\n".encode()]
    for name in [".notdef", *glyph_names]:
        private.append(f"/{name} {len(charstring)} RD ".encode() + charstring + b" ND\n")
    private.append(b"end\nend\nreadonly put\nnoaccess put\ndup/FontName get exch "
                   b"definefont pop\nmark currentfile closefile\n")
    encrypted, _ = eexec.encrypt(b"\0\0\0\0" + b"".join(private), 55665)
    trailer = (("0" * 64 + "\n") * 8 + "cleartomark\n").encode("ascii")
    return clear + encrypted + trailer, len(clear), len(encrypted)


def _content(lines: Sequence[str], code_of: dict[str, int], *, width: int,
             spaces: bool, size: int = 11) -> bytes:
    """Lines drawn top down; each word a hex string; words apart by a space glyph when
    `spaces`, else by a TJ offset of a third of the type size (no space glyph at all)."""
    commands = []
    y = 720
    for line in lines:
        parts = []
        for i, word in enumerate(line.split(" ")):
            if i and spaces:
                parts.append(f"<{code_of[' ']:0{width}X}>")
            elif i:
                parts.append("-333")
            parts.append("<" + "".join(f"{code_of[c]:0{width}X}" for c in word) + ">")
        commands.append(f"BT /F1 {size} Tf 72 {y} Td [{' '.join(parts)}] TJ ET")
        y -= int(size * 1.5)
    return "\n".join(commands).encode("ascii")


def _pdf(font: pikepdf.Dictionary, pdf: pikepdf.Pdf, content: bytes,
         heading: str | None) -> bytes:
    """The page, with `heading` above the lines in Helvetica (readable without any of
    this) when given."""
    fonts = pikepdf.Dictionary(F1=pdf.make_indirect(font), F2=pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                           BaseFont=pikepdf.Name.Helvetica)))
    if heading is not None:
        escaped = heading.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        content = f"BT /F2 16 Tf 72 750 Td ({escaped}) Tj ET\n".encode("latin-1") + content
    page = pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, 612, 792],
                              Resources=pikepdf.Dictionary(Font=fonts),
                              Contents=pdf.make_stream(content))
    pdf.pages.append(pikepdf.Page(page))
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def _descriptor(pdf: pikepdf.Pdf, key: str, program: pikepdf.Stream, *,
                symbolic: bool) -> pikepdf.Dictionary:
    return pikepdf.Dictionary(
        Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name("/ABCDEF+Generated"),
        Flags=4 if symbolic else 32, FontBBox=[0, -200, 500, 800], ItalicAngle=0,
        Ascent=800, Descent=-200, CapHeight=700, StemV=80,
        **{key: pdf.make_indirect(program)})


def simple_font_pdf(lines: Sequence[str], *, program: str, spaces: bool = True,
                    cmap: str = "symbol", glyph_names: str = "agl",
                    to_unicode: dict[int, str] | None = None,
                    differences: Sequence[str] | None = None,
                    heading: str | None = None) -> bytes:
    """One page of `lines` in a simple font drawn with codes 1, 2, 3... (in first-use
    order) and no ToUnicode (unless `to_unicode`, code -> text, is given). `program` is
    "truetype" (symbolic, with `cmap` and `glyph_names` as `truetype_program` takes),
    "cff" (custom built-in encoding) or "type1" (custom built-in encoding); with
    glyph names `differences` at codes 1, 2, 3... of an /Encoding over it), for any
    program kind."""
    chars = alphabet(lines, with_space=spaces)
    code_of = {c: i + 1 for i, c in enumerate(chars)}
    pdf = pikepdf.Pdf.new()
    if program == "truetype":
        data = truetype_program(chars, cmap=cmap, glyph_names=glyph_names)
        stream = pikepdf.Stream(pdf, data)
        stream.Length1 = len(data)
        subtype, key = pikepdf.Name.TrueType, "FontFile2"
    elif program == "cff":
        stream = pikepdf.Stream(pdf, cff_program(chars, encoding=True))
        stream.Subtype = pikepdf.Name.Type1C
        subtype, key = pikepdf.Name.Type1, "FontFile3"
    else:
        data, length1, length2 = type1_program(chars)
        stream = pikepdf.Stream(pdf, data)
        stream.Length1, stream.Length2, stream.Length3 = length1, length2, len(data) - (
            length1 + length2)
        subtype, key = pikepdf.Name.Type1, "FontFile"
    font = pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=subtype, BaseFont=pikepdf.Name("/ABCDEF+Generated"),
        FirstChar=1, LastChar=len(chars), Widths=[ADVANCE] * len(chars),
        FontDescriptor=pdf.make_indirect(_descriptor(pdf, key, stream, symbolic=True)))
    if differences is not None:
        font.Encoding = pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=[
            1, *(pikepdf.Name("/" + name) for name in differences)])
    if to_unicode is not None:
        font.ToUnicode = pdf.make_stream(_to_unicode_cmap(to_unicode, width=2))
    return _pdf(font, pdf, _content(lines, code_of, width=2, spaces=spaces), heading)


def cid_font_pdf(lines: Sequence[str], *, spaces: bool = True, cmap: str = "symbol",
                 glyph_names: str = "agl", to_unicode: dict[int, str] | None = None,
                 cid_to_gid: bool = False, heading: str | None = None) -> bytes:
    """One page of `lines` in a Type0 font over a TrueType CIDFont (Identity-H, so the
    codes are glyph indices 1, 2, 3...), without ToUnicode unless `to_unicode` (CID ->
    text) is given; with `cid_to_gid`, CIDs are 101, 102... mapped by a CIDToGIDMap."""
    chars = alphabet(lines, with_space=spaces)
    shift = 100 if cid_to_gid else 0
    code_of = {c: i + 1 + shift for i, c in enumerate(chars)}
    pdf = pikepdf.Pdf.new()
    data = truetype_program(chars, cmap=cmap, glyph_names=glyph_names)
    stream = pikepdf.Stream(pdf, data)
    stream.Length1 = len(data)
    descendant = pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.CIDFontType2,
        BaseFont=pikepdf.Name("/ABCDEF+Generated"),
        CIDSystemInfo=pikepdf.Dictionary(Registry=pikepdf.String("Adobe"),
                                         Ordering=pikepdf.String("Identity"), Supplement=0),
        DW=ADVANCE,
        FontDescriptor=pdf.make_indirect(_descriptor(pdf, "FontFile2", stream,
                                                     symbolic=True)))
    if cid_to_gid:
        table = bytearray(2 * (len(chars) + 1 + shift))
        for i in range(len(chars)):
            table[2 * (i + 1 + shift):2 * (i + 2 + shift)] = (i + 1).to_bytes(2, "big")
        descendant.CIDToGIDMap = pdf.make_stream(bytes(table))
    font = pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type0,
        BaseFont=pikepdf.Name("/ABCDEF+Generated"), Encoding=pikepdf.Name("/Identity-H"),
        DescendantFonts=[pdf.make_indirect(descendant)])
    if to_unicode is not None:
        font.ToUnicode = pdf.make_stream(_to_unicode_cmap(to_unicode, width=4))
    return _pdf(font, pdf, _content(lines, code_of, width=4, spaces=spaces), heading)


def _to_unicode_cmap(mapping: dict[int, str], *, width: int) -> bytes:
    entries = "\n".join(
        f"<{code:0{width}X}> <{''.join(f'{ord(c):04X}' for c in text)}>"
        for code, text in sorted(mapping.items()))
    low, high = "0" * width, "F" * width
    return ("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            "/CMapName /Generated def\n/CMapType 2 def\n1 begincodespacerange\n"
            f"<{low}> <{high}>\nendcodespacerange\n{len(mapping)} beginbfchar\n"
            f"{entries}\nendbfchar\nendcmap\nCMapName currentdict /CMap defineresource pop\n"
            "end\nend\n").encode("ascii")
