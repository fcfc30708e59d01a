"""Content stream instructions tokenised by qpdf (through pikepdf), as the operand types
pdfminer's interpreter takes.

pdfminer's pure-Python lexer was about 40% of extraction time on the paper corpus; qpdf
tokenises the same bytes in C++ (ADR-0013). The stream bytes are the ones pdfminer
decoded under the content budget, so qpdf never inflates anything itself.
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from typing import Any

import pikepdf
from pdfminer.psparser import LIT

# Above this many decoded bytes a page's content is read by pdfminer's streaming lexer:
# qpdf returns all instructions of a stream at once, and a flood of operators must not
# become one list in memory. Real pages hold tens to hundreds of KiB.
MAX_TOKENISED_BYTES = 2 * 1024 * 1024

_NAME = pikepdf.ObjectType.name_
_STRING = pikepdf.ObjectType.string
_ARRAY = pikepdf.ObjectType.array
_DICTIONARY = pikepdf.ObjectType.dictionary
_BOOLEAN = pikepdf.ObjectType.boolean
_INTEGER = pikepdf.ObjectType.integer
_REAL = pikepdf.ObjectType.real
_OPERATOR = pikepdf.ObjectType.operator


def _operand(value: Any) -> Any:
    if type(value) is int:
        return value
    if type(value) is Decimal:
        return float(value)
    if value is None or type(value) is bool:  # pikepdf gives both as Python's own
        return value
    code = value._type_code
    if code is _STRING:
        return bytes(value)
    if code is _NAME:
        return LIT(str(value)[1:])
    if code is _ARRAY:
        return [_operand(item) for item in value]
    if code is _DICTIONARY:
        return {str(key)[1:]: _operand(item) for key, item in value.items()}
    if code is _INTEGER:
        return int(value)
    if code is _REAL:
        return float(value)
    if code is _BOOLEAN:
        return bool(value)
    return None


class _Instructions(pikepdf.StreamParser):
    """Collects (operator, operands) as qpdf reads each token, converting the operands
    at once: `parse_content_stream` first builds every instruction as qpdf objects,
    which for a page of 18,000 stroked paths (the dev corpus's B33) held 90 MB beside
    the converted list; converted token by token, the peak is the list alone."""

    def __init__(self) -> None:
        super().__init__()  # pikepdf's C++ parser needs its own initialisation
        self.found: list[tuple[str, list[Any]]] = []
        self._operands: list[Any] = []
        self._in_image = False

    def handle_object(self, obj: Any, offset: int, length: int) -> None:
        kind = type(obj)
        if kind is int:
            self._operands.append(obj)
        elif kind is Decimal:
            self._operands.append(float(obj))
        elif kind is bool or obj is None:  # None: a token qpdf could not read
            if not self._in_image:
                self._operands.append(obj)
        elif obj._type_code is _OPERATOR:
            operator = str(obj)
            if operator == "BI":
                self._in_image = True
            elif not self._in_image:
                self.found.append((operator, self._operands))
            elif operator == "EI":
                self._in_image = False
            self._operands = []
        elif not self._in_image:
            self._operands.append(_operand(obj))

    def handle_eof(self) -> None:
        pass


def instructions(data: bytes) -> list[tuple[str, list[Any]]]:
    """(operator, operands) in stream order, operands as pdfminer's types; raises
    pikepdf.PdfError when qpdf cannot tokenise the bytes. Inline images are left out:
    sheaf reads text and shapes, not pixels."""
    scratch = pikepdf.Pdf.new()  # qpdf's objects must not outlive the Pdf that owns them
    parser = _Instructions()
    with scratch, warnings.catch_warnings():
        # qpdf's complaints about a truncated stream are Python warnings; the text
        # before the damage is still read.
        warnings.simplefilter("ignore")
        pikepdf.Object._parse_stream(pikepdf.Stream(scratch, data), parser)
    return parser.found
