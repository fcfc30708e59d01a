"""JSON laid out as `json.dumps(value, ensure_ascii=False, indent=2)` lays it out, made
faster.

With an indent, the standard library encodes in Python, a generator step for every
bracket, key and value; `sheaf extract --format json` spent 0.41 s of a 612-page run in
it (ADR-0039, fifth round). This renders the same text by appending to one list, with
strings still escaped by the standard library's C escaper. The two are held to the same
output for any JSON value by a property test.
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

_STEP = "  "


def indented_json(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)`: the same text, or the same
    error for a value JSON cannot hold."""
    parts: list[str] = []
    _value(value, parts, "\n")
    return "".join(parts)


def _value(value: Any, parts: list[str], newline: str) -> None:
    # The standard library's order of tests: a str subclass is a string, a bool is no
    # number, an int subclass prints as int does.
    if isinstance(value, str):
        parts.append(encode_basestring(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(_float(value))
    elif isinstance(value, (list, tuple)):
        _list(value, parts, newline)
    elif isinstance(value, dict):
        _dict(value, parts, newline)
    else:
        raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)


def _list(values: list[Any] | tuple[Any, ...], parts: list[str], newline: str) -> None:
    if not values:
        parts.append("[]")
        return
    inner = newline + _STEP
    parts.append("[")
    separator = inner
    for item in values:
        parts.append(separator)
        _value(item, parts, inner)
        separator = "," + inner
    parts.append(newline)
    parts.append("]")


def _dict(values: dict[Any, Any], parts: list[str], newline: str) -> None:
    if not values:
        parts.append("{}")
        return
    inner = newline + _STEP
    parts.append("{")
    separator = inner
    for key, item in values.items():
        parts.append(separator)
        parts.append(encode_basestring(_key(key)))
        parts.append(": ")
        _value(item, parts, inner)
        separator = "," + inner
    parts.append(newline)
    parts.append("}")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")
