"""Bounded JSON: nesting deeper than a cap is refused as `too_complex` before parsing.

Python's decoder recurses once per level, so a few kilobytes of `[` end in a
RecursionError (and a printer recurses again); the depth is measured first, in one
linear pass over the brackets that lie outside strings.
"""

from __future__ import annotations

import json
import re

from ..errors import ErrorKind, SheafError

MAX_JSON_DEPTH = 256
"""Deeper than any real document or API body; far below the interpreter's recursion limit."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str, limit: int = MAX_JSON_DEPTH) -> int:
    """The deepest nesting of arrays and objects in `text`, counted up to `limit + 1`."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif depth:
            depth -= 1
    return deepest


def check_json_depth(text: str, what: str = "the JSON", limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse `text` as `too_complex` when it nests deeper than `limit`."""
    if json_depth(text, limit) > limit:
        raise SheafError(ErrorKind.TOO_COMPLEX,
                         f"{what} nests arrays or objects more than {limit} levels deep")


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def parse_strict_json(text: str, what: str = "the JSON", limit: int = MAX_JSON_DEPTH) -> object:
    """Standard JSON only (no NaN or Infinity), nested at most `limit` deep.

    Raises `too_complex` for deep nesting and `ValueError` for anything that is not JSON."""
    check_json_depth(text, what, limit)
    return json.loads(text, parse_constant=_no_constant)
