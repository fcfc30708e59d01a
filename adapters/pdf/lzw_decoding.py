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
_WIDER_AT = {510: (10, 1022), 1022: (11, 2046), 2046: (12, -1)}
"""The table's size at which codes grow a bit (pdfminer's early change at 511, 1023
and 2047 entries, counting the one being added): the new width and the next size."""


def lzw_decode_bounded(data: bytes, limit: int) -> bytes:
    """`data` LZW-decoded as pdfminer decodes it; `too_large` past `limit` bytes."""
    table: list[bytes | None] = []
    append = table.append
    size = 0  # len(table), kept rather than asked per code
    previous: bytes | None = None
    width = 9
    wider_at = 510
    out = bytearray()
    accumulator = have = position = 0
    end = len(data)
    while True:
        if have < width:
            # Two bytes at a time where there are two (a code is at most 12 bits): the
            # same codes, and the data ends where a code finds too few bits left.
            if position + 1 < end:
                accumulator = (accumulator << 16) | (data[position] << 8) | data[position + 1]
                position += 2
                have += 16
            elif position < end:
                accumulator = (accumulator << 8) | data[position]
                position += 1
                have += 8
                if have < width:
                    break
            else:
                break
        have -= width
        code = accumulator >> have
        accumulator &= (1 << have) - 1
        if code == _CLEAR:
            table = list(_BASE)
            append = table.append
            size = len(table)
            previous = b""
            width = 9
            wider_at = 510
            continue
        if code == _END:
            continue
        if not previous:
            # Before any clear code the table is empty: pdfminer fails there too.
            entry = table[code]
            assert entry is not None
        else:
            if code < size:
                found = table[code]
                assert found is not None
                entry = found
                append(previous + entry[:1])
            elif code == size:
                entry = previous + previous[:1]
                append(entry)
            else:
                break  # a corrupt code: what came before stands
            if size == wider_at:
                width, wider_at = _WIDER_AT[size]
            size += 1
        previous = entry
        out += entry
        if len(out) > limit:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"a stream decodes to more than {limit} bytes "
                             f"(the decoded stream limit)")
    return bytes(out)
