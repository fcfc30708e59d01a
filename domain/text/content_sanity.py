"""Whether bytes offered as text are text at all: a file of NUL bytes or random bytes
named `.html` or `.txt` is refused rather than stored as a document of noise."""

from __future__ import annotations

import codecs
import re

SAMPLE_BYTES = 64 * 1024
"""How much of the body is judged; noise shows in any stretch of it."""
MAX_UNREADABLE = 0.1
"""Real text has at most a few stray control or undecodable characters in a hundred;
random bytes are over a tenth control characters in any single-byte charset, and
mostly replacement characters as UTF-8."""
MIN_CONTROLS = 0.02
"""Random bytes are about one tenth control characters; text, almost none."""
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
"""Unicode's control characters (category Cc is exactly U+0000–U+001F and
U+007F–U+009F) but the whitespace ones (tab, line feed, vertical tab, form feed,
carriage return): one pass of the regular expression engine instead of a category
lookup per character, which cost 10 ms on a 64 KiB page."""
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"),
         (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))


def unreadable_text_reason(body: bytes, charset: str | None = None) -> str | None:
    """Why `body` is not text (mostly NUL or control bytes, or mostly undecodable in its
    declared charset or else UTF-8), or None when it reads as text."""
    sample = body[:SAMPLE_BYTES]
    codec = next((c for bom, c in _BOMS if sample.startswith(bom)), None)
    if codec is not None:
        sample = sample[len(next(b for b, c in _BOMS if c == codec)):]
    else:
        codec = charset or "utf-8"
        try:
            codecs.lookup(codec)
        except LookupError:
            codec = "utf-8"
    text = sample.decode(codec, errors="replace")
    if not text:
        return None
    controls = len(CONTROL_CHARACTERS.findall(text))
    replaced = text.count("\ufffd")
    # Both signals are needed: text in a legacy charset that was not declared (Greek in
    # cp1253) is mostly undecodable as UTF-8 but has no control characters, while binary
    # data of any kind is dense with them.
    if controls <= MIN_CONTROLS * len(text) or (controls + replaced) <= MAX_UNREADABLE * len(
            text):
        return None
    if controls >= replaced:
        nul = text.count("\x00")
        what = "NUL bytes" if nul * 2 > controls else "control characters"
        return f"not text: {100 * controls // len(text)}% of it is {what}"
    return (f"not text: {100 * replaced // len(text)}% of it does not decode as "
            f"{codec}")
