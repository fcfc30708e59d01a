from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.quote_matching import MatchKind, find_quote

TEXT = ("## Results\n\nLeaf growth rose by 23 percent in the four days after spring tides. "
        "The algo-\nrithm “worked” — mostly. The ﬁrst trial\nfailed twice.")


def test_exact_first() -> None:
    result = find_quote(TEXT, "rose by 23 percent")
    (match,) = result.matches
    assert match.kind is MatchKind.EXACT and TEXT[match.start:match.end] == "rose by 23 percent"


def test_tolerant_returns_the_documents_own_characters() -> None:
    for query in ('the algorithm "worked" - mostly', "THE FIRST TRIAL FAILED TWICE",
                  "leaf   growth rose\nby 23 percent"):
        (match,) = find_quote(TEXT, query).matches
        assert match.kind is MatchKind.TOLERANT, query
    match = find_quote(TEXT, 'the algorithm "worked" - mostly').matches[0]
    assert TEXT[match.start:match.end] == "The algo-\nrithm “worked” — mostly"


def test_fuzzy_is_reported_with_its_score() -> None:
    (match,) = find_quote(TEXT, "Leaf growth rose by 25 percent in four days after spring "
                                "tides").matches
    assert match.kind is MatchKind.FUZZY and 0.85 <= match.score < 1
    assert TEXT[match.start:match.end].startswith("Leaf growth rose by 2")


def test_an_absent_sentence_is_not_found_but_the_closest_is_reported() -> None:
    result = find_quote(TEXT, "Quantum chromodynamics predicts asymptotic freedom at scale.")
    assert not result.found
    assert result.closest is None or result.closest.score < 0.85


def test_all_occurrences() -> None:
    text = "A tide. A tide. A tide."
    assert len(find_quote(text, "a tide", find_all=True).matches) == 3
    assert len(find_quote(text, "A tide", find_all=True).matches) == 3


@given(st.text(alphabet="abc -\n“”'", min_size=1, max_size=80), st.data())
def test_any_substring_is_found_and_returned_verbatim(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    query = text[start:end]
    result = find_quote(text, query)
    if query.strip():
        assert result.found
        match = result.matches[0]
        assert match.kind is MatchKind.EXACT
        assert text[match.start:match.end] == query.strip()
