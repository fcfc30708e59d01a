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


def _operand(value: Any) -> Any:
    if type(value) is int:
        return value
    if type(value) is Decimal:
        return float(value)
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


def instructions(data: bytes) -> list[tuple[str, list[Any]]]:
    """(operator, operands) in stream order, operands as pdfminer's types; raises
    pikepdf.PdfError when qpdf cannot tokenise the bytes. Inline images are left out:
    sheaf reads text and shapes, not pixels."""
    scratch = pikepdf.Pdf.new()  # qpdf's objects must not outlive the Pdf that owns them
    with scratch, warnings.catch_warnings():
        # qpdf's complaints about a truncated stream are Python warnings; the text
        # before the damage is still read.
        warnings.simplefilter("ignore")
        return [(str(instruction.operator), [_operand(v) for v in instruction.operands])
                for instruction in pikepdf.parse_content_stream(pikepdf.Stream(scratch, data))
                if not isinstance(instruction, pikepdf.ContentStreamInlineImage)]
