"""Removing script, style and comment bodies from raw HTML bytes before parsing.

html5lib tokenizes every character of an inline script although sheaf throws scripts
away; on news pages scripts are often most of the bytes. The scan below follows the
tokenizer's rules for where these end (the first `</script`, `</style` or the end of
the comment), left to right. Ordinary tags and the text-only elements (title,
textarea, ...) are matched too and kept as they are, so a `<script` that the parser
would read as part of another tag, or as text, is left alone. JSON-LD scripts are kept:
they carry metadata.
"""

from __future__ import annotations

import re

_RAW = re.compile(
    rb"<!--(?:>|->|.*?(?:--!?>|\Z))"
    rb"|<script(?=[\s/>])([^>]*)>.*?(?:</script[\s/>]|\Z)"
    rb"|<style(?=[\s/>])[^>]*>.*?(?:</style[\s/>]|\Z)"
    rb"|<(title|textarea|xmp|iframe|noembed|noframes)(?=[\s/>])[^>]*>.*?(?:</\2[\s/>]|\Z)"
    rb"|</?[A-Za-z][^>]*>",
    re.IGNORECASE | re.DOTALL,
)
_JSON_LD = re.compile(rb"application/ld\+json", re.IGNORECASE)
_DOUBLE_ESCAPE = re.compile(rb"<!--.*<script", re.IGNORECASE | re.DOTALL)
_ASCII_INCOMPATIBLE_BOMS = (b"\xff\xfe", b"\xfe\xff")


def strip_scripts(body: bytes) -> bytes:
    """`body` without script, style and comment contents (JSON-LD kept); bytes in
    encodings that are not ASCII-compatible are returned unchanged."""
    if body.startswith(_ASCII_INCOMPATIBLE_BOMS) or b"\x00" in body[:1024]:
        return body
    out: list[bytes] = []
    position = 0
    for match in _RAW.finditer(body):
        whole = match.group(0)
        head = whole[:7].lower()
        if head.startswith(b"<!--"):
            # An empty comment still separates what stood on either side ("<" + "a").
            replacement = b"<!---->" if whole.endswith(b">") else b""
        elif head.startswith(b"<script"):
            if _DOUBLE_ESCAPE.search(whole, 7):
                # "<!--" then "<script" inside a script: the parser's escaped states make
                # the end unpredictable by pattern. Leave the rest of the page as it is.
                break
            attributes = match.group(1) or b""
            replacement = whole if _JSON_LD.search(attributes) else _closing(whole, b"</script")
        elif head.startswith(b"<style"):
            replacement = _closing(whole, b"</style")
        else:
            continue
        out.append(body[position:match.start()])
        out.append(replacement)
        position = match.end()
    out.append(body[position:])
    return b"".join(out)


def _closing(whole: bytes, end_tag: bytes) -> bytes:
    """The same element emptied: its start tag, then its end tag with the byte the
    regex consumed past the tag name, so the tree around it is built as before."""
    start_end = whole.find(b">") + 1
    cut = whole.lower().rfind(end_tag)
    if cut < start_end:  # unterminated: the parser would swallow the rest as script text
        return whole[:start_end]
    return whole[:start_end] + whole[cut:]
