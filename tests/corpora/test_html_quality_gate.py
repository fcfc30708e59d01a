"""The HTML quality gate: sheaf's extraction on the dev corpora must not fall below the
floors pinned in tests/corpora/html_quality_floors.json (articles-dev F1, web-pages-dev
kept/excluded-segment F1 and zero-kept pages, scholarly-html-dev and -2 heading recall,
sentences, reference lists, chrome and junk probes, titles; no page empty), in-sample and
cross-validated by site (`cv_`).

Every page is parsed once, in the module fixture; the asserts share the figures. Skipped
when ../shared/corpora is absent. The checker itself is tested without the corpora, and
once more on the real figures with every floor raised past them, so the gate is shown
to fail when a floor is broken.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# bench/ is not part of the installed package; the gate shares its scoring with
# `make bench-html`, so the checkout's root is put on the path to import it.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.quality_gate import (  # noqa: E402
    corpora_present,
    floor_failures,
    gate_figures,
    load_floors,
)

_needs_corpora = pytest.mark.skipif(not corpora_present(), reason="../shared/corpora absent")


@pytest.fixture(scope="module")
def figures() -> dict[str, float]:
    return gate_figures()


@_needs_corpora
@pytest.mark.slow  # extracts the whole corpus: `make test-slow` and .ci/run
def test_every_pinned_floor_holds(figures: dict[str, float]) -> None:
    assert floor_failures(figures, load_floors()) == []


@_needs_corpora
@pytest.mark.slow
def test_the_gate_fails_when_a_floor_is_raised_past_the_figures(
        figures: dict[str, float]) -> None:
    raised = {name: ({"min": bound["min"] + 1.0} if "min" in bound
                     else {"max": figures[name] - 1.0})
              for name, bound in load_floors().items()}
    failures = floor_failures(figures, raised)
    assert len(failures) == len(raised)


def test_floors_cover_every_acceptance_figure() -> None:
    assert set(load_floors()) >= {
        "articles_f1", "web_f1", "web_zero_kept_pages", "scholarly_heading_recall",
        "scholarly_sentences_missing", "scholarly_incomplete_reference_lists",
        "scholarly_pages_with_chrome", "empty_pages", "cv_articles_f1", "cv_web_f1",
        "cv_web_zero_kept_pages", "cv_scholarly_heading_recall",
        "cv_scholarly2_heading_recall", "cv_scholarly2_sentences_missing",
        "cv_scholarly2_incomplete_reference_lists", "cv_scholarly2_pages_with_junk_probes",
        "cv_scholarly2_titles_with_markup", "cv_empty_pages"}


def test_checker_reports_each_bound_broken_and_unknown_figures() -> None:
    floors = {"f1": {"min": 0.9}, "zero": {"max": 3}, "gone": {"min": 0.5}}
    assert floor_failures({"f1": 0.95, "zero": 3, "gone": 0.5}, floors) == []
    failures = floor_failures({"f1": 0.89, "zero": 4}, floors)
    assert [f.split(" ")[0].rstrip(":") for f in failures] == ["f1", "gone", "zero"]
