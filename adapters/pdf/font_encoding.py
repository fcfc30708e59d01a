"""Font encodings pdfminer gets wrong, put right once per font (ADR-0013).

Two classes of glyph come out of pdfminer as the wrong character or as none, and the
garbage filter then drops them as private-use code points or they read as other
letters: © ® ™, Greek letters and math signs among them.

- The Symbol font's own encoding. A simple font with no /Encoding (or a /Differences
  dictionary without /BaseEncoding) takes its font program's built-in encoding, which
  for Symbol is Adobe's Symbol encoding; pdfminer falls back to StandardEncoding, so
  Symbol's `m` (mu) comes out as `m` and its copyright sign as `ª`. The same holds for
  an embedded Type 1 program with /Differences: codes it does not list keep the
  program's own names.
- WinAnsiEncoding's code 173. The spec encodes the hyphen a second time there, meaning a
  soft hyphen (word processors set it where they break a word at a line end); pdfminer's
  table reads it as a space, so `shal-` + `low` came out as two words.
- Adobe's corporate-use glyph names (`copyrightsans`, `registerserif`, `Asmall`,
  `zerooldstyle`, `parenlefttp`) map to private-use code points in the Adobe Glyph
  List; they stand for ordinary characters (©, ®, a, 0, ⎛) and are read as those.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

from pdfminer.encodingdb import name2unicode
from pdfminer.glyphlist import glyphname2unicode
from pdfminer.pdffont import PDFFont, PDFSimpleFont, Type1FontHeaderParser
from pdfminer.pdfinterp import PDFResourceManager
from pdfminer.pdftypes import dict_value, int_value, list_value, resolve1, stream_value
from pdfminer.psexceptions import PSEOF, PSException
from pdfminer.psparser import PSLiteral

from .program_decoding import decode_cid_font, decode_simple_font

# Adobe's Symbol encoding, code:glyph name, as its AFM file lists it.
_SYMBOL = """
32:space 33:exclam 34:universal 35:numbersign 36:existential 37:percent 38:ampersand
39:suchthat 40:parenleft 41:parenright 42:asteriskmath 43:plus 44:comma 45:minus
46:period 47:slash 48:zero 49:one 50:two 51:three 52:four 53:five 54:six 55:seven
56:eight 57:nine 58:colon 59:semicolon 60:less 61:equal 62:greater 63:question
64:congruent 65:Alpha 66:Beta 67:Chi 68:Delta 69:Epsilon 70:Phi 71:Gamma 72:Eta 73:Iota
74:theta1 75:Kappa 76:Lambda 77:Mu 78:Nu 79:Omicron 80:Pi 81:Theta 82:Rho 83:Sigma
84:Tau 85:Upsilon 86:sigma1 87:Omega 88:Xi 89:Psi 90:Zeta 91:bracketleft 92:therefore
93:bracketright 94:perpendicular 95:underscore 96:radicalex 97:alpha 98:beta 99:chi
100:delta 101:epsilon 102:phi 103:gamma 104:eta 105:iota 106:phi1 107:kappa 108:lambda
109:mu 110:nu 111:omicron 112:pi 113:theta 114:rho 115:sigma 116:tau 117:upsilon
118:omega1 119:omega 120:xi 121:psi 122:zeta 123:braceleft 124:bar 125:braceright
126:similar 160:Euro 161:Upsilon1 162:minute 163:lessequal 164:fraction 165:infinity
166:florin 167:club 168:diamond 169:heart 170:spade 171:arrowboth 172:arrowleft
173:arrowup 174:arrowright 175:arrowdown 176:degree 177:plusminus 178:second
179:greaterequal 180:multiply 181:proportional 182:partialdiff 183:bullet 184:divide
185:notequal 186:equivalence 187:approxequal 188:ellipsis 189:arrowvertex
190:arrowhorizex 191:carriagereturn 192:aleph 193:Ifraktur 194:Rfraktur 195:weierstrass
196:circlemultiply 197:circleplus 198:emptyset 199:intersection 200:union
201:propersuperset 202:reflexsuperset 203:notsubset 204:propersubset 205:reflexsubset
206:element 207:notelement 208:angle 209:gradient 210:registerserif 211:copyrightserif
212:trademarkserif 213:product 214:radical 215:dotmath 216:logicalnot 217:logicaland
218:logicalor 219:arrowdblboth 220:arrowdblleft 221:arrowdblup 222:arrowdblright
223:arrowdbldown 224:lozenge 225:angleleft 226:registersans 227:copyrightsans
228:trademarksans 229:summation 230:parenlefttp 231:parenleftex 232:parenleftbt
233:bracketlefttp 234:bracketleftex 235:bracketleftbt 236:bracelefttp 237:braceleftmid
238:braceleftbt 239:braceex 241:angleright 242:integral 243:integraltp 244:integralex
245:integralbt 246:parenrighttp 247:parenrightex 248:parenrightbt 249:bracketrighttp
250:bracketrightex 251:bracketrightbt 252:bracerighttp 253:bracerightmid
254:bracerightbt
"""
SYMBOL_ENCODING: dict[int, str] = {int(code): name for code, name in (
    pair.split(":") for pair in _SYMBOL.split())}


def named_characters(table: str) -> dict[str, str]:
    """A table of `name:XXXX` pairs (XXXX a hexadecimal code point) as name -> character."""
    return {name: chr(int(code, 16)) for name, code in (
        pair.split(":") for pair in table.split())}


# Adobe's names for the pieces of tall delimiters and extensible arrows, name:code point.
_EXTENSION_PIECES = named_characters("""
parenlefttp:239b parenleftex:239c parenleftbt:239d parenrighttp:239e parenrightex:239f
parenrightbt:23a0 bracketlefttp:23a1 bracketleftex:23a2 bracketleftbt:23a3
bracketrighttp:23a4 bracketrightex:23a5 bracketrightbt:23a6 bracelefttp:23a7
braceleftmid:23a8 braceleftbt:23a9 braceex:23aa bracerighttp:23ab bracerightmid:23ac
bracerightbt:23ad integralex:23ae arrowvertex:23d0 arrowhorizex:23af radicalex:203e
""")
_VARIANT = re.compile(r"(?:small|oldstyle|superior|inferior|sans|serif)$")

# TeX's math fonts (CMSY, CMMI, CMEX, AMS) name glyphs outside the Adobe Glyph List;
# pdfTeX's glyphtounicode gives the same readings. CMEX's sizes of one delimiter or
# operator (parenleftbig, summationdisplay) are read by their base name.
_TEX_NAMES = named_characters("""
circlecopyrt:25ef openbullet:25e6 diamondmath:22c4 minusplus:2213 circleminus:2296
circledivide:2298 circledot:2299 equivasymptotic:224d precedesequal:2aaf
followsequal:2ab0 lessmuch:226a greatermuch:226b precedes:227a follows:227b
arrownortheast:2197 arrowsoutheast:2198 similarequal:2243 arrownorthwest:2196
arrowsouthwest:2199 prime:2032 owner:220b triangleinv:25bd negationslash:0338
mapsto:21a6 latticetop:22a4 unionmulti:228e turnstileleft:22a2 turnstileright:22a3
floorleft:230a floorright:230b ceilingleft:2308 ceilingright:2309 angbracketleft:27e8
angbracketright:27e9 bardbl:2016 arrowbothv:2195 arrowdblbothv:21d5 wreathproduct:2240
coproduct:2a3f unionsq:2294 intersectionsq:2293 subsetsqequal:2291 supersetsqequal:2292
diamond:2662 heart:2661 epsilon1:03b5 theta1:03d1 pi1:03d6 rho1:03f1 sigma1:03c2
phi1:03c6 harpoonleftup:21bc harpoonleftdown:21bd harpoonrightup:21c0
harpoonrightdown:21c1 slurbelow:2323 slurabove:2322 triangleright:25b7 triangleleft:25c1
star:22c6 lscript:2113 flat:266d natural:266e sharp:266f dotlessj:0237 summation:2211
product:220f contintegral:222e union:22c3 intersection:22c2 logicaland:22c0
logicalor:22c1 circledotdisplay:2a00 circleplusdisplay:2a01 circlemultiplydisplay:2a02
radical:221a parenleft:0028 parenright:0029 bracketleft:005b bracketright:005d
braceleft:007b braceright:007d slash:002f backslash:005c
""")
_TEX_SIZE = re.compile(r"(?:big|Big|bigg|Bigg|text|display|wide|wider|widest)$")


def tex_glyph(name: str) -> str | None:
    """What a TeX math font's glyph name outside the Adobe Glyph List reads as."""
    char = _TEX_NAMES.get(name)
    if char is None and (base := _TEX_SIZE.sub("", name)) != name:
        char = _TEX_NAMES.get(base) or glyphname2unicode.get(base)
    return char


def _is_private(text: str) -> bool:
    return any("\ue000" <= c <= "\uf8ff" for c in text)


def _ordinary(name: str) -> str | None:
    """The ordinary character an Adobe corporate-use glyph name stands for."""
    if name in _EXTENSION_PIECES:
        return _EXTENSION_PIECES[name]
    base = _VARIANT.sub("", name)
    base = "registered" if base == "register" else base
    for candidate in (base, base.lower()):
        if candidate and candidate != name:
            char = glyphname2unicode.get(candidate)
            if char is not None and not _is_private(char):
                return char.lower() if name.endswith("small") else char
    return None


CORPORATE_USE: dict[str, str] = {
    private: ordinary for name, private in sorted(glyphname2unicode.items())
    if _is_private(private) and (ordinary := _ordinary(name)) is not None}
"""Private-use characters of the Adobe Glyph List, each with the character it stands for."""


def _glyph(name: object) -> str | None:
    text = name.name if isinstance(name, PSLiteral) else name
    if not isinstance(text, str):
        return None
    try:
        char = name2unicode(text)
    except (KeyError, ValueError):
        return tex_glyph(text)
    return _ordinary_text(char)


def _symbol_font(font: PDFFont, spec: dict[str, Any]) -> bool:
    base = str(getattr(font, "basefont", "")).split("+", 1)[-1]
    return re.sub(r"(?:MT|PS)?(?:[-,].*)?$", "", base) == "Symbol"


def _differences(spec: dict[str, Any]) -> tuple[list[Any], bool] | None:
    """An /Encoding dictionary's /Differences, and whether it names no /BaseEncoding
    (so the font program's own encoding is its base); ([], True) when there is no
    /Encoding; None when the encoding is a name alone (pdfminer reads those)."""
    if "Encoding" not in spec:
        return [], True
    encoding = resolve1(spec["Encoding"])
    if isinstance(encoding, dict):
        return list(list_value(encoding.get("Differences", []))), "BaseEncoding" not in encoding
    return None


class _Type1Header(Type1FontHeaderParser):
    """A Type 1 program's encoding, TeX's glyph names read too."""

    def get_encoding(self) -> dict[int, str]:
        while True:
            try:
                code, name = self.nextobject()
            except PSEOF:
                break
            char = _glyph(name)
            if char is not None and isinstance(code, int):
                self._cid2unicode[code] = char
        return self._cid2unicode


def _builtin(font: PDFFont, spec: dict[str, Any]) -> dict[int, str] | None:
    """The font program's own encoding: Symbol's, or an embedded Type 1 program's."""
    if _symbol_font(font, spec):
        return {code: char for code, name in SYMBOL_ENCODING.items()
                if (char := _glyph(name)) is not None}
    descriptor = dict_value(spec.get("FontDescriptor", {}))
    if "FontFile" not in descriptor:
        return None
    program = stream_value(descriptor["FontFile"])
    data = program.get_data()[:int_value(program.get("Length1", 0)) or None]
    return dict(_Type1Header(io.BytesIO(data)).get_encoding())


SOFT_HYPHEN_CODE = 173


def _win_ansi_based(spec: dict[str, Any]) -> bool:
    encoding = resolve1(spec.get("Encoding"))
    if isinstance(encoding, dict):
        encoding = resolve1(encoding.get("BaseEncoding"))
    return isinstance(encoding, PSLiteral) and encoding.name == "WinAnsiEncoding"


def repair_encoding(font: PDFFont, spec: dict[str, Any]) -> None:
    """Put right a font's codes (see the module's docstring), in place; where the PDF's
    maps still fail, read the glyphs through the embedded font program
    (`program_decoding`)."""
    if not isinstance(font, PDFSimpleFont):
        decode_cid_font(font, spec)
        return
    unreadable: dict[int, str] = {}
    if _win_ansi_based(spec) and font.cid2unicode.get(SOFT_HYPHEN_CODE) == " ":
        # Differences applied below may still name another glyph at this code.
        font.cid2unicode = {**font.cid2unicode, SOFT_HYPHEN_CODE: "\u00ad"}
    found = _differences(spec)
    if found is not None:
        differences, implicit_base = found
        table = dict(font.cid2unicode)
        if implicit_base and (builtin := _builtin(font, spec)):
            table = builtin
        code = 0
        for item in differences:
            if isinstance(item, int):
                code = item
                continue
            char = _glyph(item)
            if char is not None:
                table[code] = char
            else:
                # A name nobody can read: the base's character at that code would be
                # another glyph's text, so the code is left unmapped (and flagged)
                # unless the font program knows the glyph.
                table.pop(code, None)
                if isinstance(item, PSLiteral) and isinstance(item.name, str):
                    unreadable[code] = item.name
            code += 1
        font.cid2unicode = table
    font.cid2unicode = {code: _ordinary_text(char) for code, char in font.cid2unicode.items()}
    mapping = getattr(font.unicode_map, "cid2unichr", None)
    if isinstance(mapping, dict):
        for code, char in list(mapping.items()):
            if not isinstance(char, str):
                continue
            if _is_unusable(char):
                # A ToUnicode entry of U+FFFF, U+FFFD or a control code says nothing;
                # the encoding's own reading, when there is one, stands.
                if code in font.cid2unicode:
                    mapping[code] = font.cid2unicode[code]
                else:
                    del mapping[code]
            elif _is_private(char):
                mapping[code] = _ordinary_text(char)
    decode_simple_font(font, spec, unreadable)


def _is_unusable(text: str) -> bool:
    return not text or all(c in "\ufffe\uffff\ufffd" or (ord(c) < 32 and c not in "\t\n\r")
                           for c in text)


def _ordinary_text(text: str) -> str:
    return "".join(CORPORATE_USE.get(c, c) for c in text) if _is_private(text) else text


class EncodingRepairingResources(PDFResourceManager):
    """pdfminer's resource manager with each new simple font's encoding put right."""

    def get_font(self, objid: object, spec: Any) -> PDFFont:
        font = super().get_font(objid, spec)
        if not getattr(font, "sheaf_repaired", False):
            # A broken font program keeps pdfminer's reading.
            with contextlib.suppress(ValueError, KeyError, TypeError, IndexError, PSException):
                repair_encoding(font, dict_value(spec))
            font.sheaf_repaired = True  # type: ignore[attr-defined]
        return font
