"""The output budget: cuts never exceed the limit and end on a whole sentence when one
fits; pages cover every item once; cursors belong to the call they continue."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.sentences import sentence_spans
from sheaf.domain.analysis.text_profile import profile_text
from sheaf.domain.errors import SheafError
from sheaf.entrypoints.mcp.output_budget import (
    OutputBudget,
    decode_cursor,
    encode_cursor,
    fit_items,
    sentence_cut,
)
from sheaf.entrypoints.mcp.tool_calls import _line_numbers

WORDS = st.sampled_from(["tide", "Seagrass", "grew", "3.5", "et al.", "e.g.", "Fig. 2",
                         "pegs", "DOI 10.1000/x.y", "winter", "—", "storms", "é"])
SENTENCE = st.builds(lambda words, stop: " ".join(words).capitalize() + stop,
                     st.lists(WORDS, min_size=1, max_size=12), st.sampled_from([".", "?", "!"]))
TEXT = st.builds(lambda paragraphs: "\n\n".join(" ".join(p) for p in paragraphs),
                 st.lists(st.lists(SENTENCE, min_size=1, max_size=8), min_size=1,
                          max_size=6))


@given(TEXT, st.integers(min_value=1, max_value=400), st.data())
def test_a_cut_stays_within_the_limit_and_ends_a_sentence_when_one_fits(
        text: str, limit: int, data: st.DataObject) -> None:
    start = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
    spans = sentence_spans(text)
    starts_at_sentence = start in {s for s, _ in spans}
    cut = sentence_cut(text, start, len(text), limit)
    assert start < cut <= len(text) and cut - start <= limit
    if cut < len(text) and starts_at_sentence:
        fitting = [end for s, end in spans if s >= start and end <= start + limit]
        if fitting:
            assert cut == max(fitting)


def test_a_sentence_longer_than_the_budget_is_cut_at_a_space() -> None:
    text = "word " * 100
    cut = sentence_cut(text, 0, len(text), 52)
    assert cut <= 52 and text[cut] == " "


@given(st.lists(st.text(min_size=0, max_size=60), max_size=30),
       st.integers(min_value=80, max_value=600))
def test_pages_cover_every_item_once_in_order(items: list[str], limit: int) -> None:
    def measure(shown: object, cursor: str | None) -> int:
        return len(json.dumps([shown, cursor]))

    shown: list[str] = []
    skip, cursors = 0, 0
    while True:
        page = fit_items(items, skip, lambda n: f"c{n}", measure, limit, lambda item, _: item)
        shown += page.items
        if page.next_cursor is None:
            break
        assert page.items, "a page never comes back empty while items remain"
        skip = int(page.next_cursor[1:])
        cursors += 1
        assert cursors <= len(items)
    assert shown == items


def test_an_item_too_big_for_the_budget_is_shortened_not_dropped() -> None:
    page = fit_items(["x" * 500, "y"], 0, lambda n: f"c{n}", lambda shown, _: len(
        "".join(shown)), 100, lambda item, room: item[:room])
    assert page.items == ("x" * 100,) and page.next_cursor == "c1"


def test_a_cursor_continues_only_its_own_call() -> None:
    arguments = {"query": "tides", "k": 20}
    cursor = encode_cursor("search_knowledge", arguments, 7)
    assert decode_cursor("search_knowledge", dict(arguments), cursor) == 7
    for tool, other in (("search_knowledge", {"query": "storms", "k": 20}),
                        ("list_documents", arguments)):
        with pytest.raises(SheafError, match="other arguments"):
            decode_cursor(tool, other, cursor)
    with pytest.raises(SheafError, match="not a cursor"):
        decode_cursor("search_knowledge", arguments, "not-base64!")


def test_a_budget_too_small_to_say_anything_is_refused() -> None:
    with pytest.raises(SheafError, match="too small"):
        OutputBudget(10)


@given(st.lists(st.sampled_from(["", "  ", "Tide.", "# Head", "- item", "a b c"]),
                min_size=1, max_size=20), st.data())
def test_line_numbers_count_lines_as_quotes_do(lines: list[str], data: st.DataObject) -> None:
    text = "\n".join(lines)
    spans = profile_text(text, []).lines
    if not spans:
        assert _line_numbers(text, 0, len(text)) is None
        return
    first = data.draw(st.integers(min_value=0, max_value=len(spans) - 1))
    last = data.draw(st.integers(min_value=first, max_value=len(spans) - 1))
    assert _line_numbers(text, spans[first][0], spans[last][1]) == (first + 1, last + 1)
