"""A folded pattern matches exactly what its IGNORECASE original matches (issue 36)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.html import block_features, content_root, element_rules, page_blocks
from sheaf.adapters.html.folded_patterns import FoldedPattern

SHIPPED = [
    *(value for module in (element_rules, content_root, block_features)
      for value in vars(module).values() if isinstance(value, FoldedPattern)),
    *(pattern for _name, pattern in page_blocks.PATH_WORDS),
]


def _pieces(pattern: FoldedPattern) -> list[str]:
    """Words of the pattern's source, so generated text hits its alternatives."""
    return re.findall(r"[a-z]{2,}", pattern.pattern) or ["x"]


def _texts(pattern: FoldedPattern) -> st.SearchStrategy[str]:
    word = st.sampled_from(_pieces(pattern)).flatmap(
        lambda w: st.lists(st.booleans(), min_size=len(w), max_size=len(w)).map(
            lambda upper: "".join(c.upper() if u else c for c, u in zip(w, upper,
                                                                         strict=True))))
    glue = st.text(alphabet="-_ .:/0123456789aZ", max_size=3)
    return st.lists(st.one_of(word, glue), max_size=6).map("".join)


@given(st.data())
def test_every_shipped_pattern_matches_as_its_original(data: st.DataObject) -> None:
    pattern = data.draw(st.sampled_from(SHIPPED))
    text = data.draw(st.one_of(_texts(pattern), st.text(max_size=12)))
    for method in ("search", "match", "fullmatch"):
        found = getattr(pattern, method)(text)
        expected = getattr(pattern.original, method)(text)
        assert (found and found.span()) == (expected and expected.span()), (method, text)


def test_the_shipped_rules_are_folded() -> None:
    # Each is matched on lowered text: a pattern that stopped qualifying would silently
    # lose the speed, so the shipped ones are held to qualifying.
    assert len(SHIPPED) >= 30
    assert all(p._twin is not None for p in SHIPPED)


def test_patterns_that_fold_differently_keep_their_original() -> None:
    for source in (r"[A-Z]\d", r"(?-i:ab)c", r"\x41b", "\u212aelvin", r"(?a)k"):
        pattern = FoldedPattern(re.compile(source, re.IGNORECASE))
        assert pattern._twin is None, source
    assert FoldedPattern(re.compile("abc"))._twin is None  # case-sensitive already
    kelvin = FoldedPattern(re.compile("kelvin", re.IGNORECASE))
    assert kelvin.search("\u212aelvin") is not None  # not ASCII: the original decides
