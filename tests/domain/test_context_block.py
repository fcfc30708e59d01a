"""Cited context blocks: within budget, cut only between sentences."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.chunking import estimate_tokens
from sheaf.domain.analysis.sentences import sentence_spans
from sheaf.domain.search.context_block import CitedPassage, context_block

SENTENCES = st.lists(st.sampled_from([
    "Seagrass grew with the tides.", "Shoot density doubled in spring.",
    "Dr. Smith et al. measured 3.5 cm of growth.", "Growth stopped?",
    "Storms broke the plots in winter!"]), min_size=1, max_size=8)


def passage(text: str, number: int) -> CitedPassage:
    return CitedPassage(text, f"doc_{number}", f"Paper {number}", None, ("Results",), (3, 4),
                        100, 100 + len(text))


@given(st.lists(SENTENCES, min_size=1, max_size=4), st.integers(min_value=0, max_value=400))
def test_within_budget_and_cut_between_sentences(texts: list[list[str]], budget: int) -> None:
    passages = [passage(" ".join(t), i) for i, t in enumerate(texts)]
    block = context_block(passages, budget)
    assert estimate_tokens(block) <= budget
    for part in filter(None, block.split("\n\n")):
        body, citation = part.split("\n")
        number = int(body[1:body.index("]")])
        original = passages[number - 1].text
        kept = body.removeprefix(f"[{number}] ")
        assert original.startswith(kept)
        assert len(kept) in {end for _, end in sentence_spans(original)}
        assert citation.startswith(f"— [{number}] Paper {number - 1}, Results, p. 3-4")
        assert f"characters 100-{100 + len(kept)}" in citation


def test_everything_fits_when_the_budget_allows() -> None:
    block = context_block([passage("One. Two.", 1), passage("Three.", 2)], 1000)
    assert block.count("\n\n") == 1 and "[2] Three." in block
