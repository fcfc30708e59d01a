from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.sentences import sentence_spans


def split(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("One. Two.", ["One.", "Two."]),
    ("Use e.g. salt. Then stop.", ["Use e.g. salt.", "Then stop."]),
    ("That is, i.e. this one. Next.", ["That is, i.e. this one.", "Next."]),
    ("Smith et al. found it. We agree.", ["Smith et al. found it.", "We agree."]),
    ("See Fig. 3 and Eq. 2 for details. Done.", ["See Fig. 3 and Eq. 2 for details.", "Done."]),
    ("A vs. B was close. Yes.", ["A vs. B was close.", "Yes."]),
    ("Dr. Lee spoke. Then left.", ["Dr. Lee spoke.", "Then left."]),
    ("Made in the U.S. by hand. Fine.", ["Made in the U.S. by hand.", "Fine."]),
    ("The value was 3.14 units. Next.", ["The value was 3.14 units.", "Next."]),
    ("J. R. R. Tolkien wrote. Then.", ["J. R. R. Tolkien wrote.", "Then."]),
    ("Prior work agrees [12]. We differ.", ["Prior work agrees [12].", "We differ."]),
    ("As shown (Smith et al., 2019). Next one.",
     ["As shown (Smith et al., 2019).", "Next one."]),
    ("See https://doi.org/10.1000/x.y for it. Next.",
     ["See https://doi.org/10.1000/x.y for it.", "Next."]),
    ("Wait... Then it came. Fine.", ["Wait...", "Then it came.", "Fine."]),
    ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
    ("It ended (finally.) Next.", ["It ended (finally.)", "Next."]),
    ("Why? Because. Really!", ["Why?", "Because.", "Really!"]),
    ("First para.\n\nSecond para", ["First para.", "Second para"]),
    ("1. First item with text", ["1. First item with text"]),
])
def test_splitting(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@given(st.text(alphabet="ab .?!\n\"()[]ABC12", max_size=200))
def test_spans_are_ordered_trimmed_and_inside_the_text(text: str) -> None:
    spans = sentence_spans(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        previous = end
    covered = "".join(text[a:b] for a, b in spans)
    assert "".join(covered.split()) == "".join(text.split())  # nothing lost, no overlap


def test_numbering_is_stable_for_long_documents() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(5000))
    spans = sentence_spans(text)
    assert len(spans) == 5000
    assert text[slice(*spans[4321])] == "Sentence number 4321 ends here."
