from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.word_tokens import is_unit_boundary
from sheaf.domain.quotes.quote_matching import MatchKind, find_quote

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


# -- word and grapheme boundaries, and bounded cost ------------------------------------

_WORDS = ["tide", "leaf", "growth", "shoot", "rose", "the", "and", "прилив", "лист",
          "रोशनी", "हिन्दी", "潮", "叶", "ภาษา", "ไทย", "café", "naïve"]
_SEPARATORS = [" ", " ", " ", ", ", ". ", "\n", "。"]


@st.composite
def _texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=3, max_size=60))
    separators = draw(st.lists(st.sampled_from(_SEPARATORS), min_size=len(words),
                               max_size=len(words)))
    return "".join(w + s for w, s in zip(words, separators, strict=True))


@given(_texts(), st.data())
def test_fuzzy_matches_and_closest_passages_start_and_end_on_unit_boundaries(
        text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    query = list(text[start:end])
    for _ in range(data.draw(st.integers(0, 3))):  # a few typos, anywhere, even mid-word
        query[data.draw(st.integers(0, len(query) - 1))] = data.draw(st.sampled_from("xй漢 "))
    result = find_quote(text, "".join(query))
    for match in (*result.matches, *([result.closest] if result.closest else [])):
        if match.kind is MatchKind.EXACT:
            continue  # the caller's own characters, wherever they fall
        assert is_unit_boundary(text, match.start), (text, query, match)
        assert is_unit_boundary(text, match.end), (text, query, match)
        assert text[match.start:match.end].strip() == text[match.start:match.end]


@given(st.lists(st.text("abcdefghijklmnopрстуф", min_size=3, max_size=9), min_size=30,
                max_size=120, unique=True), st.data())
def test_a_passage_with_a_typo_inside_is_found_whole(words: list[str],
                                                     data: st.DataObject) -> None:
    # Prose rarely repeats a run of words; where it does, the greedy alignment may settle
    # for a shorter one, which the property below allows.
    for i in range(0, len(words), 4):
        words.insert(i, data.draw(st.sampled_from(["the", "of", "and", "a"])))
    text = " ".join(words)
    first = data.draw(st.integers(0, len(words) - 12))
    last = data.draw(st.integers(first + 11, min(len(words) - 1, first + 40)))
    typo = data.draw(st.integers(first + 1, last - 1))
    query_words = list(words[first:last + 1])
    query_words[typo - first] = query_words[typo - first][:-1] + "q"
    query = " ".join(query_words)
    passage = " ".join(words[first:last + 1])
    result = find_quote(text, query)
    assert result.found
    (match,) = result.matches
    assert match.kind is MatchKind.FUZZY
    found = text[match.start:match.end]
    # Repeated words can make an equally good passage elsewhere; never a worse one.
    assert found == passage or match.score >= find_quote(passage, query).matches[0].score


def test_a_fragment_starting_mid_word_is_not_cut_mid_word() -> None:
    text = ("We then imagine that there really is a rule. Our main results. A key aspect "
            "of the argument is that it holds in every case we tried.")
    for query in ("t results. A key aspect of the argument", "imagin that there realy is"):
        result = find_quote(text, query)
        match = result.matches[0] if result.found else result.closest
        assert match is not None and match.kind is MatchKind.FUZZY
        assert is_unit_boundary(text, match.start) and is_unit_boundary(text, match.end)
    (match,) = find_quote(text, "t results. A key aspect of the argument").matches
    assert text[match.start:match.end] == "results. A key aspect of the argument"


def test_tolerant_matches_never_start_inside_a_word() -> None:
    text = "The ALGORITHM worked. The rhythm held."
    result = find_quote(text, "rithm worked")
    assert all(m.kind is not MatchKind.TOLERANT for m in result.matches)
    assert find_quote(text, "algorithm WORKED").matches[0].kind is MatchKind.TOLERANT


def test_scripts_without_spaces_match_on_graphemes() -> None:
    text = "潮汐は葉の成長を促した。春の大潮の後、成長は二十三パーセント増えた。"
    result = find_quote(text, "春の大潮の後、成長は二十五パーセント増えた")
    (match,) = result.matches
    assert match.kind is MatchKind.FUZZY
    assert text[match.start:match.end] == "春の大潮の後、成長は二十三パーセント増えた"
    hindi = "पत्तियों की वृद्धि तेज़ हुई। ज्वार के बाद वृद्धि तेईस प्रतिशत बढ़ी।"
    result = find_quote(hindi, "ज्वार के बाद वृद्धि चौबीस प्रतिशत बढ़ी")
    match = result.matches[0] if result.found else result.closest
    assert match is not None
    assert is_unit_boundary(hindi, match.start) and is_unit_boundary(hindi, match.end)


def test_a_long_fuzzy_query_is_found_in_a_long_text() -> None:
    # Quadratic matching took minutes at this size; the bound keeps it near-linear
    # (bench/quote_matching_scale.py measures it).
    words = [f"w{i % 977}x{i % 13}" for i in range(40_000)]
    text = " ".join(words)
    query_words = words[10_000:30_000]
    for i in range(0, len(query_words), 50):
        query_words[i] = "typo"
    result = find_quote(text, " ".join(query_words))
    (match,) = result.matches
    assert match.kind is MatchKind.FUZZY and match.score > 0.95
    assert match.start == text.index(" w" + words[10_001][1:]) - len(words[10_000]) or \
        text[match.start:].startswith(words[10_001])
