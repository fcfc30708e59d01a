"""Where a request is not the document's text, the passage given back: the document's own
words, whole units (never half a word or grapheme), found in bounded time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.word_tokens import is_unit_boundary
from sheaf.domain.quotes.quote_verification import Mode, PassageMatch, Verdict, verify_quote

TEXT = ("## Results\n\nLeaf growth rose by 23 percent in the four days after spring tides. "
        "The algo-\nrithm “worked” — mostly. The ﬁrst trial\nfailed twice.")


def _passage(text: str, request: str) -> PassageMatch | None:
    found = verify_quote(text, request, mode=Mode.LOCATE)
    return found.matches[0] if found.matches else found.closest


def test_a_near_passage_is_located_with_its_similarity() -> None:
    found = verify_quote(TEXT, "Leaf growth rose by 25 percent in four days after spring "
                               "tides", mode=Mode.LOCATE)
    assert found.verdict is Verdict.LOCATED
    (match,) = found.matches
    assert match.match == "fuzzy" and 0.85 <= match.similarity < 1
    assert TEXT[match.start:match.end].startswith("Leaf growth rose by 2")


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
def test_near_and_closest_passages_start_and_end_on_unit_boundaries(
        text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    request = list(text[start:end])
    for _ in range(data.draw(st.integers(0, 3))):  # a few typos, anywhere, even mid-word
        request[data.draw(st.integers(0, len(request) - 1))] = data.draw(
            st.sampled_from("xй漢 "))
    found = verify_quote(text, "".join(request), mode=Mode.LOCATE)
    for match in (*found.matches, *([found.closest] if found.closest else [])):
        if match.match != "fuzzy":
            continue  # equal to the request once canonical: the request's own bounds
        assert is_unit_boundary(text, match.start), (text, request, match)
        assert is_unit_boundary(text, match.end), (text, request, match)
        assert text[match.start:match.end].strip() == text[match.start:match.end]


@given(st.lists(st.text("abcdefghijklmnopрстуф", min_size=3, max_size=9), min_size=30,
                max_size=120, unique=True), st.data())
def test_a_passage_with_a_typo_inside_is_located_whole(words: list[str],
                                                       data: st.DataObject) -> None:
    for i in range(0, len(words), 4):
        words.insert(i, data.draw(st.sampled_from(["the", "of", "and", "a"])))
    text = " ".join(words)
    first = data.draw(st.integers(0, len(words) - 12))
    last = data.draw(st.integers(first + 11, min(len(words) - 1, first + 40)))
    typo = data.draw(st.integers(first + 1, last - 1))
    request_words = list(words[first:last + 1])
    request_words[typo - first] = request_words[typo - first][:-1] + "q"
    request = " ".join(request_words)
    passage = " ".join(words[first:last + 1])
    assert not verify_quote(text, request).verified
    match = _passage(text, request)
    assert match is not None and match.match == "fuzzy"
    # Prose rarely repeats a run of words; where it does, the greedy alignment may settle
    # for an equally good passage elsewhere, never a worse one.
    best = _passage(passage, request)
    assert best is not None
    assert text[match.start:match.end] == passage or match.similarity >= best.similarity


def test_a_fragment_starting_mid_word_is_not_cut_mid_word() -> None:
    text = ("We then imagine that there really is a rule. Our main results. A key aspect "
            "of the argument is that it holds in every case we tried.")
    for request in ("t results. A key aspect of the argument", "imagin that there realy is"):
        match = _passage(text, request)
        assert match is not None and match.match == "fuzzy"
        assert is_unit_boundary(text, match.start) and is_unit_boundary(text, match.end)
    # The stray letter stands for the word the document has there, shown replaced.
    match = _passage(text, "t results. A key aspect of the argument")
    assert match is not None
    assert text[match.start:match.end] == "main results. A key aspect of the argument"
    assert [(d.request, d.document) for d in match.differences] == [("t", "main")]


def test_scripts_without_spaces_are_located_on_graphemes() -> None:
    text = "潮汐は葉の成長を促した。春の大潮の後、成長は二十三パーセント増えた。"
    match = _passage(text, "春の大潮の後、成長は二十五パーセント増えた")
    assert match is not None and match.match == "fuzzy"
    assert text[match.start:match.end] == "春の大潮の後、成長は二十三パーセント増えた"
    hindi = "पत्तियों की वृद्धि तेज़ हुई। ज्वार के बाद वृद्धि तेईस प्रतिशत बढ़ी।"
    match = _passage(hindi, "ज्वार के बाद वृद्धि चौबीस प्रतिशत बढ़ी")
    assert match is not None
    assert is_unit_boundary(hindi, match.start) and is_unit_boundary(hindi, match.end)


def test_a_long_near_request_is_located_in_a_long_text() -> None:
    # Quadratic alignment took minutes at this size; the window bound keeps it near-linear
    # (bench/quote_matching_scale.py measures it).
    words = [f"w{i % 977}x{i % 13}" for i in range(40_000)]
    text = " ".join(words)
    request_words = words[10_000:30_000]
    for i in range(0, len(request_words), 50):
        request_words[i] = "typo"
    match = _passage(text, " ".join(request_words))
    assert match is not None and match.match == "fuzzy" and match.similarity > 0.95
    assert text[match.start:].startswith((words[10_000], words[10_001]))


@given(st.text(st.characters(codec="utf-8"), max_size=60))
def test_lowering_keeps_every_offset(text: str) -> None:
    from sheaf.domain.quotes.quote_verification import _lowered
    assert _lowered(text) == "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def test_lowering_every_code_point_keeps_its_offset() -> None:
    from sheaf.domain.quotes.quote_verification import _lowered
    every = "".join(map(chr, range(0x30000))).encode("utf-8", "surrogatepass").decode(
        "utf-8", "replace")
    assert _lowered(every) == "".join(c if len(c.lower()) != 1 else c.lower() for c in every)
    assert _lowered("ΟΔΟΣ ΟΔΟΣΙ") == "οδοσ οδοσι"
