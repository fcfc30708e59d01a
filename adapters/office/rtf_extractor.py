"""The RTF extractor: Rich Text Format read as text, never stored as its markup.

RTF is a stream of groups (`{...}`), control words (`\\par`, `\\b`, `\\'e9`) and text.
The reader keeps a stack of group states: destinations that hold no body text (font and
colour tables, style sheets, pictures, field instructions, headers, `\\*` extensions)
are skipped, and what they were is counted; `\\'hh` bytes are decoded in the code page
of the document or of the current font; `\\uN` takes the place of its fallback
characters. Paragraphs become paragraphs, or headings when their outline level or style
says so; `\\listtext` paragraphs list items; `\\cell` and `\\row` tables; footnotes
notes at the end; `\\info` the metadata; `HYPERLINK` fields links.
"""

from __future__ import annotations

import codecs
import re

import anyio
import attrs

from ...domain.document.document import BlockDraft, BlockKind, Document, Link, ListItem
from ...domain.document.extraction_budget import (
    DEFAULT_EXTRACTION_LIMITS,
    ExtractionBudget,
    ExtractionLimits,
)
from ...domain.document.link_list import with_link_list
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.metadata import DocumentMetadata
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError

_TOKEN = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])"
                    rb"|([\r\n]+)|([^\\{}\r\n]+)", re.DOTALL)
_MAX_DEPTH = 512
_SKIPPED = frozenset({
    b"fonttbl", b"colortbl", b"stylesheet", b"listtable", b"listoverridetable",
    b"revtbl", b"rsidtbl", b"generator", b"xmlnstbl", b"themedata", b"colorschememapping",
    b"datastore", b"latentstyles", b"pgdsctbl", b"fldinst", b"header", b"headerl",
    b"headerr", b"headerf", b"footer", b"footerl", b"footerr", b"footerf", b"pntext",
    b"pntxta", b"pntxtb", b"listtext", b"bkmkstart", b"bkmkend", b"xe", b"tc", b"txe",
    b"filetbl", b"falt", b"panose", b"userprops", b"docvar", b"template", b"operator",
    b"nonshppict", b"shpinst", b"sp", b"sn", b"sv", b"mmathPr", b"wgrffmtfilter",
})
_INFO_FIELDS = frozenset({b"title", b"author", b"subject", b"keywords", b"doccomm",
                          b"company", b"creatim"})
_CHARSETS = {0: "cp1252", 2: "cp1252", 77: "mac_roman", 128: "cp932", 129: "cp949",
             134: "gbk", 136: "big5", 161: "cp1253", 162: "cp1254", 163: "cp1258",
             177: "cp1255", 178: "cp1256", 186: "cp1257", 204: "cp1251", 222: "cp874",
             238: "cp1250"}
_SYMBOLS = {b"emdash": "—", b"endash": "–", b"lquote": "‘", b"rquote": "’",
            b"ldblquote": "“", b"rdblquote": "”", b"bullet": "•", b"emspace": " ",
            b"enspace": " ", b"qmspace": " "}
_HYPERLINK = re.compile(r'HYPERLINK\s+"([^"]+)"')


@attrs.define
class _Group:
    skip: bool = False
    destination: bytes = b""
    uc: int = 1
    font: int | None = None


@attrs.define
class _Paragraph:
    text: list[str] = attrs.field(factory=list)
    outline: int | None = None
    style: int | None = None
    listed: bool = False
    in_table: bool = False
    list_level: int = 0


class RtfExtractor:
    """Extracts an RTF document in a worker thread; what it produces is spent from one
    `ExtractionBudget` per document (ADR-0029), table cells cut to the per-cell cap."""

    def __init__(self, limiter: anyio.CapacityLimiter | None = None, *,
                 extraction_limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) -> None:
        self._limiter = limiter
        self.extraction_limits = extraction_limits

    async def extract(self, body: bytes, *, location: str,
                      budget: ExtractionBudget | None = None) -> Document:
        return await anyio.to_thread.run_sync(self.extract_sync, body, location, budget,
                                              limiter=self._limiter)

    def extract_sync(self, body: bytes, location: str,
                     budget: ExtractionBudget | None = None) -> Document:
        return _RtfReading(body, budget if budget is not None
                           else ExtractionBudget(self.extraction_limits)).document()


class _RtfReading:
    def __init__(self, body: bytes, budget: ExtractionBudget) -> None:
        if not body.lstrip()[:5].lower().startswith(b"{\\rtf"):
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT, "not RTF: no {\\rtf header")
        self.body = body
        self.budget = budget
        self.codepage = "cp1252"
        self.fonts: dict[int, str] = {}
        self.styles: dict[int, str] = {}
        self.tally = OmissionTally()
        self.drafts: list[BlockDraft] = []
        self.notes: list[BlockDraft] = []
        self.rows: list[tuple[str, ...]] = []
        self.cells: list[str] = []
        self.items: list[ListItem] = []
        self.links: list[Link] = []
        self.info: dict[bytes, list[str]] = {}
        self.paragraph = _Paragraph()
        self.skip_chars = 0
        self.footnote: list[str] | None = None
        self.high_surrogate = 0
        self.hex_pending = bytearray()
        self.hex_codec = "cp1252"
        self.pending_link: str | None = None
        self.link_start: int | None = None

    def document(self) -> Document:
        self._parse()
        self._flush_hex()
        self._end_paragraph()
        self._flush_table()
        self._flush_list()
        drafts = self.budget.take(self.drafts + self.notes, "the document")
        if not any(d.kind is not BlockKind.HEADING for d in drafts) and not drafts:
            raise SheafError(ErrorKind.EMPTY, "the RTF document holds no text")
        drafts = with_link_list(drafts, self.links, self.budget)
        return assemble_document(drafts, metadata=self._metadata(), links=self.links,
                                 notes=[self.tally.note()])

    # -- the token stream

    def _parse(self) -> None:
        stack = [_Group()]
        field_instruction: list[str] = []
        footnote_depth = 0
        style_group: tuple[int, list[str]] | None = None
        font_group: list[int] = [-1]
        for match in _TOKEN.finditer(self.body):
            word, number, hex_byte, symbol, brace, _newline, text = match.groups()
            group = stack[-1]
            if hex_byte is not None and not group.skip:
                if self.skip_chars:  # \uN's fallback counts bytes: one \'hh each
                    self.skip_chars -= 1
                    continue
                codec = self._codepage(group)
                if codec != self.hex_codec:
                    self._flush_hex()
                self.hex_codec = codec
                self.hex_pending.append(int(hex_byte, 16))
                continue
            if self.hex_pending and _newline is None:
                self._flush_hex()  # a double-byte character is two \'hh in a row
            if brace == b"{":
                if len(stack) > _MAX_DEPTH:
                    raise SheafError(ErrorKind.CORRUPT,
                                     f"the RTF nests groups deeper than {_MAX_DEPTH}")
                stack.append(attrs.evolve(group))
                continue
            if brace == b"}":
                closing = stack.pop() if len(stack) > 1 else stack[0]
                if closing.destination == b"fldinst" and field_instruction:
                    found = _HYPERLINK.search("".join(field_instruction))
                    self.pending_link = found.group(1) if found else None
                    field_instruction = []
                elif closing.destination == b"fldrslt" and self.pending_link \
                        and self.link_start is not None:
                    anchor = " ".join("".join(self.paragraph.text)[self.link_start:].split())
                    if anchor:
                        self.links.append(Link(anchor, self.pending_link))
                    self.pending_link = self.link_start = None
                elif closing.destination == b"footnote" and self.footnote is not None \
                        and len(stack) < footnote_depth:
                    label = str(len(self.notes) + 1)
                    note = " ".join("".join(self.footnote).split())
                    self.footnote = None
                    if note:
                        self.notes.append(BlockDraft(BlockKind.FOOTNOTE,
                                                     text=f"[{label}] {note}", label=label))
                        self.paragraph.text.append(f"[{label}]")
                elif closing.destination == b"stylesheet-entry" and style_group is not None:
                    number_, parts = style_group
                    self.styles[number_] = "".join(parts).strip().rstrip(";").strip()
                    style_group = None
                continue
            if word is not None:
                self._control(word, number, stack, group)
                if group.destination == b"stylesheet" and word in (b"s", b"cs", b"ds") \
                        and number is not None and len(stack) > 2:
                    group.destination = b"stylesheet-entry"
                    group.skip = True
                    style_group = (int(number), [])
                if group.destination == b"fonttbl" and word == b"f" and number is not None:
                    font_group[0] = int(number)
                if group.destination == b"fonttbl" and word == b"fcharset" and number:
                    self.fonts[font_group[0]] = _CHARSETS.get(int(number), self.codepage)
                if word == b"footnote" and not group.skip and self.footnote is None:
                    self.footnote, footnote_depth = [], len(stack)
                    group.destination = b"footnote"
                elif word == b"fldrslt" and not group.skip:
                    group.destination = b"fldrslt"
                    self.link_start = len("".join(self.paragraph.text))
                continue
            if group.skip:
                if group.destination == b"fldinst" and text is not None:
                    field_instruction.append(text.decode("latin-1"))
                elif group.destination == b"stylesheet-entry" and style_group is not None \
                        and text is not None:
                    style_group[1].append(text.decode(self.codepage, "replace"))
                elif group.destination in _INFO_FIELDS and text is not None:
                    self.info.setdefault(group.destination, []).append(
                        text.decode(self.codepage, "replace"))
                continue
            if symbol is not None:
                if symbol in (b"\\", b"{", b"}"):
                    self._text(symbol.decode())
                elif symbol == b"~":
                    self._text("\u00a0")
                elif symbol == b"_":
                    self._text("\u2011")
                elif symbol == b"*":
                    group.skip, group.destination = True, b"*"
                elif symbol in (b"\n", b"\r"):
                    self._paragraph_break()
            elif text is not None:
                self._text(text.decode(self._codepage(group), "replace"))

    def _flush_hex(self) -> None:
        if self.hex_pending:
            text = bytes(self.hex_pending).decode(self.hex_codec, "replace")
            self.hex_pending.clear()
            self._text(text)

    def _codepage(self, group: _Group) -> str:
        return self.fonts.get(group.font, self.codepage) if group.font is not None \
            else self.codepage

    def _control(self, word: bytes, number: bytes | None, stack: list[_Group],
                 group: _Group) -> None:
        value = int(number) if number is not None else None
        if word in _SKIPPED or (word in _INFO_FIELDS and len(stack) > 1):
            # Tables of fonts and styles, field codes, running heads and feet (page
            # furniture), list numbers (the list item says it is one): not body text.
            group.skip, group.destination = True, word
            return
        if word == b"info":
            group.destination = b"info"
            return
        if word in (b"pict", b"shppict"):
            # A picture is counted once: a bare \pict, or the \*\shppict holding one
            # (its \nonshppict copy is skipped above).
            if not group.skip or (word == b"shppict" and group.destination == b"*"):
                self.tally.add(Omission.IMAGE_WITHOUT_TEXT)
            group.skip, group.destination = True, word
            return
        if word in (b"object", b"objdata"):
            if word == b"object" and (not group.skip or group.destination == b"*"):
                self.tally.add(Omission.EMBEDDED_OBJECT)
            group.skip, group.destination = True, word
            return
        if word == b"result":
            group.skip = False  # an object's result is its rendering, already counted
            return
        if group.skip:
            if word == b"ansicpg" and value:
                self.codepage = _code_page(value, self.codepage)
            return
        if word == b"ansicpg" and value:
            self.codepage = _code_page(value, self.codepage)
        elif word == b"uc" and value is not None:
            group.uc = max(0, min(value, 8))
        elif word == b"u" and value is not None:
            code = value if value >= 0 else value + 65536
            if 0xD800 <= code < 0xDC00:
                self.high_surrogate = code  # characters past U+FFFF come as a pair
            elif 0xDC00 <= code < 0xE000 and self.high_surrogate:
                self._text(chr(0x10000 + ((self.high_surrogate - 0xD800) << 10)
                               + (code - 0xDC00)))
                self.high_surrogate = 0
            elif not 0xD800 <= code < 0xE000:
                self._text(chr(code))
            self.skip_chars = group.uc
        elif word == b"f" and value is not None:
            group.font = value
        elif word == b"fldinst":
            group.skip, group.destination = True, b"fldinst"
        elif word in (b"par", b"sect", b"page"):
            self._paragraph_break()
        elif word in (b"line", b"tab"):
            self._text(" ")
        elif word == b"pard":
            self.paragraph.outline = None
            self.paragraph.style = None
            self.paragraph.in_table = False
            self.paragraph.listed = False
        elif word == b"outlinelevel" and value is not None:
            self.paragraph.outline = value
        elif word == b"s" and value is not None:
            self.paragraph.style = value
        elif word in (b"ls", b"pnlvlblt", b"pnlvlbody"):
            self.paragraph.listed = True
        elif word == b"ilvl" and value is not None:
            self.paragraph.list_level = min(max(value, 0), 8)
        elif word == b"intbl":
            self.paragraph.in_table = True
        elif word == b"cell":
            self.cells.append(" ".join("".join(self.paragraph.text).split()))
            self.paragraph.text = []
        elif word == b"row":
            if self.cells:
                self.rows.append(tuple(self.cells))
            self.cells = []
            self.paragraph.text = []
        elif word in _SYMBOLS:
            self._text(_SYMBOLS[word])

    def _text(self, text: str) -> None:
        if self.skip_chars:
            take = min(self.skip_chars, len(text))
            self.skip_chars -= take
            text = text[take:]
        if text:
            (self.footnote if self.footnote is not None else self.paragraph.text).append(text)

    def _paragraph_break(self) -> None:
        """`\\par`: a footnote's and a table cell's paragraphs stay in their note or
        cell; elsewhere the paragraph ends."""
        if self.footnote is not None or self.paragraph.in_table:
            self._text(" ")
        else:
            self._end_paragraph()

    # -- blocks

    def _end_paragraph(self) -> None:
        paragraph = self.paragraph
        text = " ".join("".join(paragraph.text).split())
        self.paragraph = attrs.evolve(paragraph, text=[])
        if paragraph.in_table:
            if text:
                self.cells.append(text)
            return
        self._flush_table()
        if not text:
            return
        heading = self._heading_level(paragraph)
        if paragraph.listed and heading is None:
            self.items.append(ListItem(text, depth=paragraph.list_level))
            return
        self._flush_list()
        if heading is not None:
            self.drafts.append(BlockDraft(BlockKind.HEADING, text=text, level=heading))
        else:
            self.drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=text))

    def _heading_level(self, paragraph: _Paragraph) -> int | None:
        if paragraph.outline is not None and 0 <= paragraph.outline < 9:
            return min(paragraph.outline + 1, 6)
        name = self.styles.get(paragraph.style if paragraph.style is not None else -1, "")
        match = re.match(r"(?i)^heading\s*(\d)$", name)
        if match:
            return min(int(match.group(1)), 6)
        if name.lower() == "title":
            return 1
        return None

    def _flush_table(self) -> None:
        if self.cells:
            self.rows.append(tuple(self.cells))
            self.cells = []
        if self.rows:
            width = max(len(r) for r in self.rows)
            rows = tuple(r + ("",) * (width - len(r)) for r in self.rows if any(r))
            if rows:
                self._flush_list()
                self.drafts.append(BlockDraft(BlockKind.TABLE, rows=rows))
            self.rows = []

    def _flush_list(self) -> None:
        if self.items:
            self.drafts.append(BlockDraft(BlockKind.LIST, items=tuple(self.items)))
            self.items = []

    def _metadata(self) -> DocumentMetadata:
        def field(name: bytes) -> str | None:
            return " ".join("".join(self.info.get(name, [])).split()) or None

        author = field(b"author")
        keywords = field(b"keywords")
        return DocumentMetadata(title=field(b"title"), authors=(author,) if author else (),
                                description=field(b"subject") or field(b"doccomm"),
                                keywords=tuple(k for k in re.split(r"[;,]\s*|\s+",
                                                                   keywords) if k)
                                if keywords else ())


def _code_page(number: int, current: str) -> str:
    """The codec of Windows code page `number`; the current one when Python has none
    (a damaged or invented `\\ansicpg`)."""
    name = "utf-8" if number == 65001 else f"cp{number}"
    try:
        codecs.lookup(name)
    except LookupError:
        return current
    return name
