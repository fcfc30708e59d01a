"""The word fidelity `make bench-pdf` reports: words split differently count once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.pdf_corpus import fidelity


@pytest.mark.parametrize(("ours", "reference"), [
    ("We train SciBERT on papers.", "We train S CI B ERT on papers."),
    ("the volume qvol and video-on-demand", "the volume q vol and video-ondemand"),
])
def test_a_word_split_or_glued_differently_is_the_same_word(ours: str, reference: str) -> None:
    assert fidelity(ours, reference) == (1.0, 1.0)
    assert fidelity(ours, reference, rejoin=False) < (1.0, 1.0)


def test_tex_accents_over_a_dotless_i_are_the_accented_letter() -> None:
    assert fidelity("after Lemaître and García", "after Lemaı\u0302tre and Garcı\u0301a",
                    rejoin=False) == (1.0, 1.0)


def test_rejoining_counts_each_word_once_and_finds_no_lost_text() -> None:
    # "scibert" appears once in ours: only one of the two split spellings is found.
    recall, precision = fidelity("SciBERT wins", "S CI B ERT wins over S CI B ERT")
    assert recall == pytest.approx(5 / 10) and precision == 1.0
    # Words really missing stay missing.
    recall, _ = fidelity("the results", "the results hold for every class")
    assert recall == pytest.approx(2 / 6)
