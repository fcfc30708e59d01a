"""Turning bytes into text: BOM first, then the declared charset, then UTF-8, never failing."""

from __future__ import annotations

import codecs

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(body: bytes, charset: str | None = None) -> str:
    """Decode `body`; undecodable bytes become U+FFFD rather than an exception."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom):].decode(codec, errors="replace")
    if charset:
        try:
            return body.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        # cp1252 maps almost every byte; what it cannot is replaced.
        return body.decode("cp1252", errors="replace")
