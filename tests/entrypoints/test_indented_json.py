"""`indented_json` writes what `json.dumps(value, ensure_ascii=False, indent=2)` writes,
for any value JSON holds, and fails where it fails."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.entrypoints.cli.indented_json import indented_json

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text(st.characters(codec="utf-8")))
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.tuples(inner, inner)
                      | st.dictionaries(keys, inner, max_size=5), max_leaves=40)


@given(values)
def test_the_same_text_as_the_standard_library(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, ensure_ascii=False, indent=2)


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    TWO = 2


def test_subclasses_and_the_values_json_refuses() -> None:
    value = {"colour": Colour.RED, "level": Level.TWO, "nested": [{}, [], {"a": [1.5]}],
             "text": "line\nbreak \"quoted\" \u00e9 \u0001"}
    assert indented_json(value) == json.dumps(value, ensure_ascii=False, indent=2)
    for refused in ({"a": {1, 2}}, {(1, 2): "tuple key"}, [object()]):
        with pytest.raises(TypeError):
            json.dumps(refused, ensure_ascii=False, indent=2)
        with pytest.raises(TypeError):
            indented_json(refused)
