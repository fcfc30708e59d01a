"""sheaf's LZW decoder gives pdfminer's bytes for any input, and stops at its limit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pdfminer.lzw import lzwdecode

from sheaf.adapters.pdf.lzw_decoding import lzw_decode_bounded
from sheaf.domain.errors import ErrorKind, SheafError
from tests.property_examples import examples


def lzw_encode(data: bytes) -> bytes:
    """PDF's LZW (early change), as a producer writes it: clear, codes, end of data;
    the table cleared again when it fills."""
    codes: list[tuple[int, int]] = []
    table = {bytes((c,)): c for c in range(256)}
    width = 9
    codes.append((256, width))
    current = b""
    for byte in data:
        candidate = current + bytes((byte,))
        if candidate in table:
            current = candidate
            continue
        codes.append((table[current], width))
        table[candidate] = len(table) + 2
        if len(table) + 2 >= 4095:
            codes.append((256, width))
            table = {bytes((c,)): c for c in range(256)}
            width = 9
        elif len(table) + 2 in (511, 1023, 2047):
            width += 1
        current = bytes((byte,))
    if current:
        codes.append((table[current], width))
    codes.append((257, width))
    bits = "".join(format(code, f"0{size}b") for code, size in codes)
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=6000) | st.text(alphabet="ab c\n", max_size=20000).map(str.encode))
def test_encoded_data_decodes_to_itself_as_pdfminer_reads_it(data: bytes) -> None:
    encoded = lzw_encode(data)
    assert lzw_decode_bounded(encoded, 1 << 30) == lzwdecode(encoded) == data


def _outcome(decode, data: bytes) -> object:  # type: ignore[no-untyped-def]
    try:
        return decode(data)
    except (IndexError, AssertionError) as exc:
        return type(exc)


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=3000).map(lambda tail: b"\x80" + tail) | st.binary(max_size=200))
def test_any_bytes_decode_or_fail_as_pdfminer_decodes_them(data: bytes) -> None:
    # b"\x80" starts with code 256 (clear) in nine bits; the rest is arbitrary.
    ours = _outcome(lambda d: lzw_decode_bounded(d, 1 << 30), data)
    theirs = _outcome(lzwdecode, data)
    assert ours == theirs or {ours, theirs} == {IndexError, AssertionError}


def test_output_past_the_limit_is_refused() -> None:
    encoded = lzw_encode(b"x" * 100_000)
    with pytest.raises(SheafError) as raised:
        lzw_decode_bounded(encoded, 10_000)
    assert raised.value.kind is ErrorKind.TOO_LARGE
