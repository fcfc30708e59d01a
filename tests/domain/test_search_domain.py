"""Rank fusion, feature hashing and retrieval metrics."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.search.embeddings import cosine, unit_vector
from sheaf.domain.search.feature_hashing import hashed_vector, shingle_fingerprint, word_features
from sheaf.domain.search.rank_fusion import reciprocal_rank_fusion
from sheaf.domain.search.retrieval_metrics import evaluate, score_query
from sheaf.domain.search.search_request import parse_metadata_filter


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)
    assert [i for i, _ in reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]])] == [
        "a", "c", "b"]


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), unique=True), max_size=4))
def test_rrf_is_sorted_and_holds_every_item(rankings: list[list[str]]) -> None:
    fused = reciprocal_rank_fusion(rankings)
    assert {i for i, _ in fused} == {i for r in rankings for i in r}
    assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)


@given(st.lists(st.lists(st.sampled_from("abcdefghijklmnop"), unique=True), max_size=4),
       st.integers(min_value=0, max_value=80))
def test_rrf_breaks_ties_by_first_appearance(rankings: list[list[str]], k: int) -> None:
    # The order the fusion promised before it sorted stably: score, then first appearance.
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    first = {item: i for i, item in enumerate(scores)}
    assert reciprocal_rank_fusion(rankings, k) == sorted(
        scores.items(), key=lambda pair: (-pair[1], first[pair[0]]))


@given(st.lists(st.text(min_size=1, max_size=6), max_size=60),
       st.sampled_from([1, 2, 3, 8, 256, 1024]))
def test_hashing_sums_only_reached_coordinates_to_the_same_numbers(
        features: list[str], dimension: int) -> None:
    # The whole vector summed, then `unit_vector`: what the sparse sums must equal exactly
    # (stored vectors and fingerprints were made so). Few dimensions force collisions,
    # some of which cancel to zero.
    import zlib
    from collections import Counter
    vector = [0.0] * dimension
    for feature, count in Counter(features).items():
        digest = zlib.crc32(feature.encode("utf-8"))
        vector[digest % dimension] += (1.0 if digest & 0x80000000 else -1.0) * (
            1.0 + math.log(count))
    assert hashed_vector(features, dimension) == unit_vector(vector)


def test_hashing_is_deterministic_unit_length_and_lexical() -> None:
    a = hashed_vector(word_features("Seagrass meadows grow with the tides"), 256)
    assert a == hashed_vector(word_features("Seagrass meadows grow with the tides"), 256)
    assert math.isclose(math.fsum(x * x for x in a), 1.0)
    near = hashed_vector(word_features("seagrass meadows grow"), 256)
    far = hashed_vector(word_features("foxes raid the bins at night"), 256)
    assert cosine(a, near) > 0.5 > cosine(a, far)
    assert not any(hashed_vector([], 8))


def test_shingle_fingerprints_separate_rewording_from_repetition() -> None:
    text = " ".join(f"w{i}" for i in range(300))
    assert cosine(shingle_fingerprint(text), shingle_fingerprint(text + " w1 w2")) > 0.99
    shuffled = " ".join(reversed(text.split()))  # same words, other sequences
    assert cosine(shingle_fingerprint(text), shingle_fingerprint(shuffled)) < 0.2


def test_unit_vector_of_zero_is_zero() -> None:
    assert unit_vector([0.0, 0.0]) == (0.0, 0.0)
    assert unit_vector([3.0, 4.0]) == pytest.approx((0.6, 0.8))


def test_query_scores() -> None:
    scores = score_query("q", ["x", "a", "x", "b"], {"a": 2, "b": 1, "c": 1})
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert scores.ndcg_at_10 == pytest.approx((2 / math.log2(3) + 1 / math.log2(4)) / ideal)
    assert scores.mrr_at_10 == pytest.approx(0.5)
    assert scores.recall_at_100 == pytest.approx(2 / 3)
    report = evaluate("bm25", {"q": ["a"]}, {"q": {"a": 1}, "r": {"b": 1}})
    assert report.ndcg_at_10 == pytest.approx(0.5) and report.as_dict()["queries"] == 2


def test_metadata_filters_parse_or_fail_typed() -> None:
    assert parse_metadata_filter(["team=blue", "k=a=b"]) == (("team", "blue"), ("k", "a=b"))
    with pytest.raises(Exception, match="not key=value"):
        parse_metadata_filter(["team"])
