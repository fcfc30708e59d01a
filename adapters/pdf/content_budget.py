"""Bounds on the work one PDF can make pdfminer do: decoded stream bytes, operators,
glyphs, graphics-state depth and time, checked while a page's content is processed.

A small file can hold a content stream that inflates a thousandfold, or millions of
text operators; both are found by counting as the work happens, never after it
(ADR-0013). pdfminer is not changed: its parser and interpreter are subclassed so the
counting is local to sheaf's extractor and other users of pdfminer in the process keep
its plain behaviour.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from typing import Any

import attrs
import pikepdf
from pdfminer.ascii85 import ascii85decode, asciihexdecode
from pdfminer.pdfinterp import PDFPageInterpreter
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import (
    LITERALS_ASCII85_DECODE,
    LITERALS_ASCIIHEX_DECODE,
    LITERALS_FLATE_DECODE,
    LITERALS_LZW_DECODE,
    LITERALS_RUNLENGTH_DECODE,
    PDFStream,
    stream_value,
)
from pdfminer.psparser import PSKeyword
from pdfminer.runlength import rldecode

from ...domain.errors import ErrorKind, SheafError
from ...domain.store.ingestion import DEFAULT_MAX_INGEST_BYTES
from .lzw_decoding import lzw_decode_bounded
from .qpdf_content import MAX_TOKENISED_BYTES, instructions

_MIB = 1024 * 1024
# How often (in counted operations) the clock is read: often enough that a budget is
# overrun by milliseconds, rarely enough to cost nothing measurable.
_CLOCK_EVERY = 2048
# Operands left on the stack by operators pdfminer does not implement pile up; no real
# operator takes more than a few dozen, so older ones are dropped past this many.
_MAX_PENDING_OPERANDS = 1000
_KEPT_OPERANDS = 64
_METHOD_NAMES: dict[str, str] = {}


@attrs.frozen
class ContentLimits:
    """What one PDF may cost. The per-stream byte cap is the same 25 MiB class of limit as
    request and file bodies (`DEFAULT_MAX_INGEST_BYTES`)."""

    max_stream_bytes: int = DEFAULT_MAX_INGEST_BYTES
    """Decoded bytes of any one stream (content, form, font, cross-reference)."""
    max_document_bytes: int = 4 * DEFAULT_MAX_INGEST_BYTES
    """Decoded bytes of all the streams one document decodes."""
    max_page_operations: int = 2_000_000
    """Operands and operators one page's content (its forms included) may run."""
    max_page_objects: int = 100_000
    """Glyphs, paths and images drawn on one page, each kept as a layout object: a dense
    page of small print holds about 15,000 glyphs."""
    max_graphics_depth: int = 1_000
    """Nested `q` (save graphics state) without `Q`."""
    page_time_budget: float = 30.0
    """Seconds one page may take, its layout analysis included."""


class ContentBudget:
    """The running count for one document, against its limits and deadline."""

    def __init__(self, limits: ContentLimits, deadline: float) -> None:
        self.limits = limits
        self.deadline = deadline
        self.page = 0
        self.decoded_bytes = 0
        self._operations = 0
        self._objects = 0
        self._page_deadline = deadline

    def start_page(self, number: int) -> None:
        now = time.monotonic()
        if now > self.deadline:
            raise SheafError(ErrorKind.TIMEOUT,
                             f"extraction ran out of its time budget at page {number}")
        self.page = number
        self._operations = 0
        self._objects = 0
        self._page_deadline = min(self.deadline, now + self.limits.page_time_budget)

    def check_time(self) -> None:
        now = time.monotonic()
        if now > self._page_deadline:
            which = ("the document's" if self._page_deadline >= self.deadline
                     else f"its {self.limits.page_time_budget:g} s page")
            raise SheafError(ErrorKind.TIMEOUT,
                             f"page {self.page} ran out of {which} time budget")

    def operation(self, count: int = 1) -> None:
        before = self._operations
        self._operations += count
        if self._operations // _CLOCK_EVERY != before // _CLOCK_EVERY:
            if self._operations > self.limits.max_page_operations:
                raise self.too_complex(
                    f"runs more than {self.limits.max_page_operations} content operations")
            self.check_time()

    def drawn(self) -> None:
        """One more glyph, path or image on the page."""
        self._objects += 1
        if self._objects > self.limits.max_page_objects:
            raise self.too_complex(
                f"draws more than {self.limits.max_page_objects} glyphs and shapes")
        # operation(1), inlined: this runs once per glyph.
        self._operations += 1
        if not self._operations % _CLOCK_EVERY:
            self._operations -= 1
            self.operation()

    def drawn_many(self, count: int) -> None:
        """`count` more glyphs on the page, counted before they are made: a string of
        glyphs is checked against the limits once, not glyph by glyph."""
        self._objects += count
        if self._objects > self.limits.max_page_objects:
            raise self.too_complex(
                f"draws more than {self.limits.max_page_objects} glyphs and shapes")
        self.operation(count)

    def too_complex(self, what: str) -> SheafError:
        """The error for this page going over a complexity limit: `what` it does."""
        return SheafError(ErrorKind.TOO_COMPLEX, f"page {self.page} {what}")

    def stream_room(self) -> int:
        """How many decoded bytes the next stream may have."""
        return min(self.limits.max_stream_bytes,
                   self.limits.max_document_bytes - self.decoded_bytes)

    def spend(self, size: int) -> None:
        if size > self.limits.max_stream_bytes:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"a stream decodes to more than {self.limits.max_stream_bytes // _MIB}"
                             f" MiB (the stream limit)")
        self.decoded_bytes += size
        if self.decoded_bytes > self.limits.max_document_bytes:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"the streams decode to more than "
                             f"{self.limits.max_document_bytes // _MIB} MiB (the document limit)")


def inflate_bounded(data: bytes, limit: int) -> bytes:
    """Inflate zlib data, refusing (`too_large`) as soon as the output passes `limit`
    bytes, so a bomb never allocates more than the limit. A corrupt tail keeps what
    decoded before it, as pdfminer does, but without its byte-at-a-time retry."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    total = 0
    pending = data
    while pending:
        room = limit + 1 - total
        try:
            piece = inflater.decompress(pending, room)
        except zlib.error:
            break
        parts.append(piece)
        total += len(piece)
        if total > limit:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"a stream inflates to more than {limit // _MIB} MiB "
                             f"(the decoded stream limit)")
        pending = inflater.unconsumed_tail
        if inflater.eof or (not pending and len(piece) < room):
            break
    return b"".join(parts)


_SIMPLE_FILTERS = {*LITERALS_FLATE_DECODE, *LITERALS_ASCII85_DECODE, *LITERALS_ASCIIHEX_DECODE,
                   *LITERALS_RUNLENGTH_DECODE, *LITERALS_LZW_DECODE}


class BoundedStream(PDFStream):
    """A stream whose decoding counts against its document's budget."""

    sheaf_budget: ContentBudget

    def decode(self) -> None:
        budget = self.sheaf_budget
        filters = self.get_filters()
        simple = all(f in _SIMPLE_FILTERS and not (params and "Predictor" in params)
                     for f, params in filters)
        if not simple or self.decipher:
            # Rare chains (predictors, LZW, image codecs): the first Flate stage is
            # measured before pdfminer decodes the chain its own way.
            if (filters and filters[0][0] in LITERALS_FLATE_DECODE and not self.decipher
                    and self.rawdata is not None):
                inflate_bounded(self.rawdata, budget.stream_room())
            super().decode()
            budget.spend(len(self.data or b""))
            return
        self.data = decode_bounded(self.rawdata or b"", [name.name for name, _ in filters],
                                   budget)
        self.rawdata = None


_FLATE = frozenset(name.name for name in LITERALS_FLATE_DECODE)
_LZW = frozenset(name.name for name in LITERALS_LZW_DECODE)
_ASCII85 = frozenset(name.name for name in LITERALS_ASCII85_DECODE)
_ASCIIHEX = frozenset(name.name for name in LITERALS_ASCIIHEX_DECODE)
_RUNLENGTH = frozenset(name.name for name in LITERALS_RUNLENGTH_DECODE)


def decode_bounded(data: bytes, filters: Sequence[str], budget: ContentBudget) -> bytes:
    """`data` through its filter chain (names without the slash), each expanding stage
    bounded by the budget's room and the result spent from it. The chain stops at a
    filter that is not a text stream's (an image codec, Crypt): what it decoded so far
    is what is counted."""
    for name in filters:
        if name in _FLATE:
            data = inflate_bounded(data, budget.stream_room())
        elif name in _ASCII85:
            data = ascii85decode(data)
        elif name in _ASCIIHEX:
            data = asciihexdecode(data)
        elif name in _LZW:
            data = lzw_decode_bounded(data, budget.stream_room())
        elif name in _RUNLENGTH:
            data = rldecode(data)
        else:
            break
    budget.spend(len(data))
    return data


class BoundedParser(PDFParser):
    """pdfminer's file parser, making every stream it reads a `BoundedStream`."""

    def __init__(self, fp: Any, budget: ContentBudget) -> None:
        super().__init__(fp)
        self.sheaf_budget = budget

    def do_keyword(self, pos: int, token: PSKeyword) -> None:
        super().do_keyword(pos, token)
        if token is self.KEYWORD_STREAM and self.curstack:
            stream = self.curstack[-1][1]
            if type(stream) is PDFStream:
                stream.__class__ = BoundedStream
                stream.sheaf_budget = self.sheaf_budget  # type: ignore[attr-defined]


class BoundedInterpreter(PDFPageInterpreter):
    """pdfminer's content interpreter, counting operands and operators against the budget
    its device carries (forms get interpreters of this class too, through `dup`)."""

    def _budget(self) -> ContentBudget:
        budget: ContentBudget = self.device.sheaf_budget  # type: ignore[attr-defined]
        return budget

    def execute(self, streams: Sequence[object]) -> None:
        """Run the streams' instructions as qpdf tokenises them; pdfminer's own lexer
        reads what qpdf cannot, and contents too large to tokenise in one piece."""
        runnable: list[PDFStream] = []
        self.stream_ids.clear()
        for obj in streams:
            stream = stream_value(obj)
            # Unnamed streams and a form that draws itself are refused, as pdfminer does.
            if stream.objid is not None and stream.objid not in self.parent_stream_ids:
                runnable.append(stream)
                self.stream_ids.add(stream.objid)
        data = b"\n".join(stream.get_data() for stream in runnable)
        if not data.strip():
            return
        try:
            if len(data) > MAX_TOKENISED_BYTES:
                raise pikepdf.PdfError("content too large to tokenise at once")
            tokens = instructions(data)
        except pikepdf.PdfError:
            super().execute(streams)
            return
        del data
        budget = self._budget()
        for operator, operands in tokens:
            budget.operation(len(operands))
            method = _METHOD_NAMES.get(operator)
            if method is None:
                method = _METHOD_NAMES[operator] = "do_" + operator.replace(
                    "*", "_a").replace('"', "_w").replace("'", "_q")
            func = getattr(self, method, None)
            if func is None:
                budget.operation()
                continue
            wanted = func.__code__.co_argcount - 1
            if not wanted:
                func()
            elif len(operands) >= wanted:
                budget.operation()
                func(*operands[-wanted:])

    def push(self, obj: Any) -> None:
        self._budget().operation()
        if len(self.argstack) >= _MAX_PENDING_OPERANDS:
            del self.argstack[:-_KEPT_OPERANDS]
        self.argstack.append(obj)

    def pop(self, n: int) -> list[Any]:
        self._budget().operation()
        return super().pop(n)

    def do_q(self) -> None:
        budget = self._budget()
        budget.operation()
        if len(self.gstack) >= budget.limits.max_graphics_depth:
            raise budget.too_complex(
                f"nests graphics states more than {budget.limits.max_graphics_depth} deep")
        super().do_q()


def _counted(name: str) -> Any:
    plain = getattr(PDFPageInterpreter, name)

    def counted(self: BoundedInterpreter) -> None:
        self._budget().operation()
        plain(self)

    counted.__name__ = name
    return counted


# Operators without operands never reach push or pop; each is counted on its own, so a
# page of nothing but `BT ET` or `Q` still meets the operation cap and the clock.
# pdfminer reads an operator's operand count from its code object, which stays 0 here.
for _name in dir(PDFPageInterpreter):
    if (_name.startswith("do_") and _name != "do_q"
            and getattr(PDFPageInterpreter, _name).__code__.co_argcount == 1):
        setattr(BoundedInterpreter, _name, _counted(_name))
