"""Text repairs PDFs need: ligatures, soft hyphens and line-end hyphenation."""

from __future__ import annotations

import re
import unicodedata

LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "st", "\ufb06": "st"}
_LIGATURE = re.compile("[" + "".join(LIGATURES) + "]")
_BREAK = re.compile(r"(?<=[a-zà-ÿ])-$")


def repair_glyphs(text: str) -> str:
    """Map ligature glyphs to letters, drop soft hyphens, compose to NFC (not NFKC)."""
    text = _LIGATURE.sub(lambda m: LIGATURES[m.group(0)], text).replace("\u00ad", "")
    return unicodedata.normalize("NFC", text)


def join_lines(lines: list[str]) -> str:
    """Join a paragraph's lines. A lower-case word broken with a hyphen at a line end is
    rejoined (`algo-` + `rithm`), unless the part before the break is itself a hyphenated
    compound (`state-of-the-` + `art` keeps its hyphen). Words that are really hyphenated
    at a line end (`well-` + `known`) lose their hyphen: the PDF does not say which it was."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        broken = _BREAK.search(out)
        if broken and line[:1].islower():
            last_word = out.rsplit(" ", 1)[-1]
            out = out + line if last_word.count("-") > 1 else out[:-1] + line
        else:
            out = out + " " + line
    return out
