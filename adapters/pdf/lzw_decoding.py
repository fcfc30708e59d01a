"""LZWDecode, as pdfminer.six reads it, in one loop and bounded.

pdfminer's decoder reads a code bit by bit through method calls and, for every code,
formats a debug message with a copy of its whole table; on the older papers that
compress their pages with LZW that was a tenth of the time spent reading them. This
decoder reads codes from a bit accumulator and keeps pdfminer's semantics exactly (the
same early change of code width, code 257 read past, the table not reset past 4095,
decoding stopped at a code beyond the table, an error for a code before any clear), so
the bytes are identical; and it refuses, `too_large`, as soon as the output passes the
stream's room in the document's budget.
"""

from __future__ import annotations

from ...domain.errors import ErrorKind, SheafError

_CLEAR, _END = 256, 257
_BASE: list[bytes | None] = [bytes((c,)) for c in range(256)] + [None, None]
_WIDTH_AT = {511: 10, 1023: 11, 2047: 12}


def lzw_decode_bounded(data: bytes, limit: int) -> bytes:
    """`data` LZW-decoded as pdfminer decodes it; `too_large` past `limit` bytes."""
    table: list[bytes | None] = []
    previous: bytes | None = None
    width = 9
    out = bytearray()
    accumulator = have = position = 0
    end = len(data)
    while True:
        while have < width:
            if position >= end:
                return bytes(out)
            accumulator = (accumulator << 8) | data[position]
            position += 1
            have += 8
        have -= width
        code = accumulator >> have
        accumulator &= (1 << have) - 1
        if code == _CLEAR:
            table = list(_BASE)
            previous = b""
            width = 9
            continue
        if code == _END:
            continue
        if not previous:
            # Before any clear code the table is empty: pdfminer fails there too.
            entry = table[code]
            assert entry is not None
        else:
            size = len(table)
            if code < size:
                found = table[code]
                assert found is not None
                entry = found
                table.append(previous + entry[:1])
            elif code == size:
                entry = previous + previous[:1]
                table.append(entry)
            else:
                return bytes(out)  # a corrupt code: what came before stands
            width = _WIDTH_AT.get(size + 1, width)
        previous = entry
        out += entry
        if len(out) > limit:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"a stream decodes to more than {limit} bytes "
                             f"(the decoded stream limit)")
