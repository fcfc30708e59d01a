"""The sign filter of the near-duplicate lookup: it never drops a fingerprint whose cosine
reaches the threshold, and it does drop unrelated ones."""

from __future__ import annotations

import math
import random
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.search.feature_hashing import FINGERPRINT_DIMENSION, shingle_fingerprint
from sheaf.domain.store.fingerprint_signs import (
    REACH_THRESHOLDS,
    fingerprint_signs,
    may_be_near,
    reach,
    reach_column,
)
from tests.property_examples import examples


def cosine(a: list[float], b: list[float]) -> float:
    x, y = array("f", a), array("f", b)
    dot = math.fsum(p * q for p, q in zip(x, y, strict=True))
    norms = math.sqrt(math.fsum(p * p for p in x) * math.fsum(q * q for q in y))
    return dot / norms if norms else 0.0


def passes(a: list[float], b: list[float], threshold: float) -> bool:
    return may_be_near(fingerprint_signs(a), reach(a, threshold), fingerprint_signs(b),
                       threshold)


coordinates = st.lists(st.integers(-4, 4), min_size=8, max_size=96)
thresholds = st.sampled_from([*REACH_THRESHOLDS, 0.97, 0.93, 0.85, 0.6, 0.999])


@settings(max_examples=examples(400), deadline=None)
@given(coordinates, st.data(), thresholds)
def test_a_fingerprint_within_the_threshold_is_never_filtered_out(
        base: list[int], data: st.DataObject, threshold: float) -> None:
    # The other vector: the same coordinates with some changed (a few flips, zeroings,
    # nudges), so that many pairs lie close to the threshold on either side.
    other = [float(x) for x in base]
    for i in data.draw(st.lists(st.integers(0, len(base) - 1), max_size=6)):
        other[i] = float(data.draw(st.integers(-4, 4))) + data.draw(
            st.floats(-0.5, 0.5, allow_nan=False))
    first = [float(x) for x in base]
    if cosine(first, other) >= threshold:
        assert passes(first, other, threshold)
        assert passes(other, first, threshold)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]),
                min_size=20, max_size=300), st.data())
def test_near_duplicate_texts_pass_at_the_ingest_threshold(words: list[str],
                                                           data: st.DataObject) -> None:
    edited = list(words)
    for i in data.draw(st.lists(st.integers(0, len(words) - 1), max_size=3)):
        edited[i] = "omega"
    a, b = shingle_fingerprint(" ".join(words)), shingle_fingerprint(" ".join(edited))
    if cosine(list(a), list(b)) >= 0.95:
        assert passes(list(a), list(b), 0.95)


def test_unrelated_documents_are_filtered_out() -> None:
    rnd = random.Random(7)
    vocabulary = [f"w{i}" for i in range(5000)]

    def text() -> str:
        return " ".join(rnd.choice(vocabulary) for _ in range(400))

    new = list(shingle_fingerprint(text()))
    others = [list(shingle_fingerprint(text())) for _ in range(50)]
    assert not any(passes(new, other, 0.95) for other in others)
    assert len(new) == FINGERPRINT_DIMENSION


def test_the_reach_kept_for_a_lookup_is_never_tighter_than_its_threshold() -> None:
    assert reach_column(0.95) == REACH_THRESHOLDS.index(0.95)
    assert REACH_THRESHOLDS[reach_column(0.97)] == 0.95  # type: ignore[index]
    assert reach_column(0.3) is None  # below every kept reach: everything a candidate
    vector = [1.0, -2.0, 0.5, 0.0, 3.0]
    assert reach(vector, 0.99) <= reach(vector, 0.9) <= reach(vector, 0.5)
    assert reach([0.0, 0.0], 0.95) == 0
