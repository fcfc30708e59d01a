"""Steps of the PDF reading that faster ones replaced, kept as the references the tests
hold the replacements to (same outputs for any input)."""

from __future__ import annotations

import re
from typing import Any

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


def walk_reading_every_page(pdf: Any, budget: Any, max_pages: int) -> None:
    """`stream_bounds._walk` as it was: each page's resources read from pikepdf again,
    object by object (the shipped walk reads each object's kind and children once per
    document)."""
    import pikepdf

    from sheaf.adapters.pdf.stream_bounds import (
        _NOT_FOLLOWED,
        _containers,
        _count_drawing,
        _read,
    )

    tokens: dict[tuple[int, int], int] = {}
    limit = budget.limits.max_page_operations
    for number, page in enumerate(pdf.pages, start=1):
        if number > max_pages:
            break
        budget.start_page(number)
        contents = page.obj.get("/Contents")
        operations = sum(_read(stream, budget, tokens, content=True)
                         for stream in _containers(
                             contents if isinstance(contents, pikepdf.Array)
                             else [contents])
                         if isinstance(stream, pikepdf.Stream))
        seen: set[tuple[int, int]] = set()
        stack = _containers([page.obj.get("/Resources")])
        while stack:
            item = stack.pop()
            if item.is_indirect:
                if item.objgen in seen:
                    continue
                seen.add(item.objgen)
            if isinstance(item, pikepdf.Array):
                stack.extend(_containers(item))
                continue
            if isinstance(item, pikepdf.Stream):
                if item.get("/Subtype") == pikepdf.Name.Image:
                    continue
                operations += _read(item, budget, tokens,
                                    content=item.get("/Subtype") == pikepdf.Name.Form)
            if operations > limit:
                raise budget.too_complex(f"runs more than {limit} content operations")
            stack.extend(_containers(value for key, value in item.items()
                                     if key not in _NOT_FOLLOWED))
        if operations > limit:
            raise budget.too_complex(f"runs more than {limit} content operations")
        if operations > budget.limits.max_page_objects:
            _count_drawing(contents, seen, pdf, budget)
        budget.check_time()
