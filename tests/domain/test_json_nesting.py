"""JSON nesting is measured without recursion; deep input is `too_complex`, in time."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.text.raw_text import raw_document
from sheaf.domain.values.json_nesting import MAX_JSON_DEPTH, json_depth, parse_strict_json

values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                      max_leaves=30)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(values)
def test_depth_matches_the_structure(value: object) -> None:
    # Brackets inside strings (and escaped quotes) do not count.
    assert json_depth(json.dumps(value)) == _depth(value)


@pytest.mark.parametrize("opening", ["[", '{"a":', '[{"b":', '{"x": "[\\"", "y":['])
def test_a_hundred_thousand_levels_are_too_complex(opening: str) -> None:
    # Before the cap this was a RecursionError (times are measured in bench/).
    text = opening * 100_000
    with pytest.raises(SheafError) as caught:
        raw_document(text, "application/json")
    assert caught.value.kind is ErrorKind.TOO_COMPLEX
    with pytest.raises(SheafError):
        parse_strict_json(text)


def test_the_deepest_allowed_document_is_pretty_printed() -> None:
    text = "[" * MAX_JSON_DEPTH + "1" + "]" * MAX_JSON_DEPTH
    assert raw_document(text, "application/json").text.count("[") == MAX_JSON_DEPTH


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_strict_json_refuses_non_numbers(text: str) -> None:
    with pytest.raises(ValueError, match="not a JSON number"):
        parse_strict_json(text)
