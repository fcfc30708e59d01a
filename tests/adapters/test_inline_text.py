"""Text measures computed the faster way equal their plain definitions (issue 36)."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.html.block_builder import _INVISIBLE, _SPACES, clean_inline
from sheaf.adapters.html.block_features import _capitalised


def _by_substitution(text: str) -> str:
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()


def test_every_code_point_is_spaced_as_by_the_substitution() -> None:
    every = "".join(f"a{chr(c)}b{chr(c)}{chr(c)}" for c in range(sys.maxunicode + 1))
    assert clean_inline(every) == _by_substitution(every)


@given(st.text(alphabet=st.sampled_from(" \t\n\r\f\v\x1c\x1f\u00a0\u2003\u200b\u00adaé.")))
def test_runs_of_spaces_and_invisible_characters(text: str) -> None:
    assert clean_inline(text) == _by_substitution(text)
    assert clean_inline(text.encode("ascii", "ignore").decode()) == _by_substitution(
        text.encode("ascii", "ignore").decode())


@given(st.text(alphabet=st.sampled_from(" \t\n\x1c\x1fAaZz0.É\u00a0ß")))
def test_capitalised_words_are_counted_as_split_words(text: str) -> None:
    assert _capitalised(text) == len([w for w in text.split() if w[:1].isupper()])
