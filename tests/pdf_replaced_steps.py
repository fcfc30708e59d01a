"""Steps of the PDF reading that faster ones replaced, kept as the references the tests
hold the replacements to (same outputs for any input)."""

from __future__ import annotations

import re

_BREAK_AT_END = re.compile(r"(?<=[a-zà-ÿ])-$")


def join_searching_whole_paragraph(lines: list[str]) -> str:
    """`join_lines` as it was: the break searched over the whole paragraph so far, once
    per line (quadratic); the shipped one looks at its last two characters only."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        broken = _BREAK_AT_END.search(out)
        if out.endswith("\u00ad"):
            out = out[:-1] + line
        elif broken and line[:1].islower():
            last_word = out.rsplit(" ", 1)[-1]
            out = out + line if last_word.count("-") > 1 else out[:-1] + line
        else:
            out = out + " " + line
    return out
