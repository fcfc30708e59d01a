"""The HTML quality gate: sheaf's figures on the four dev corpora, checked against floors
pinned in tests/corpora/html_quality_floors.json: in-sample (the shipped block model) and
cross-validated by site (`cv_` figures, each page scored with the model of its fold).

The test tests/corpora/test_html_quality_gate.py (marked slow) runs it in `make test-slow`
and .ci/run; by hand:

    .venv/bin/python -m bench.quality_gate [--corpora DIR]

Each page is extracted once per model; every figure comes from those Documents.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.html_cross_validated import MARKUP, fold_models
from bench.html_folds import load_folds
from bench.html_quality import (
    CORPORA,
    collapse,
    load_articles,
    load_web_pages,
    mean_f1,
    plain_body,
    scholarly_score,
    segment_score,
    segments_prf,
    shingle_scores,
)
from sheaf.adapters.html.block_model import shipped_model
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.document.document import Document
from sheaf.domain.errors import SheafError

FLOORS = Path(__file__).resolve().parents[1] / "tests" / "corpora" / "html_quality_floors.json"


def corpora_present(corpora: Path = CORPORA) -> bool:
    return all((corpora / name).is_dir()
               for name in ("articles-dev", "web-pages-dev", "scholarly-html-dev"))


def gate_figures(corpora: Path = CORPORA) -> dict[str, float]:
    """sheaf's figures on the dev corpora, by the names the floors use: the plain names
    with the shipped block model (trained on these pages: in-sample), the `cv_` names
    with each page's own fold model (trained without the page's site: held out, as
    bench/html_cross_validated.py measures them)."""
    shipped = Html5libExtractor(block_model=shipped_model())
    held_out = {fold: Html5libExtractor(block_model=model)
                for fold, model in fold_models().items()}
    folds = load_folds()
    figures: dict[str, float] = {}
    for prefix, pick in (("", lambda _corpus, _pid: shipped),
                         ("cv_", lambda corpus, pid: held_out[folds[corpus][pid]])):
        figures.update({prefix + k: v for k, v in _figures(corpora, pick).items()})
    return figures


def _extract(extractor: Html5libExtractor, html: bytes, url: str) -> Document | None:
    try:
        return extractor.extract_sync(html, url)
    except SheafError:
        return None


def _figures(corpora: Path, pick: Callable[[str, str], Html5libExtractor]
             ) -> dict[str, float]:
    articles, truth = load_articles(corpora / "articles-dev")
    article_scores = []
    empty = 0
    for pid, html in articles.items():
        document = _extract(pick("articles-dev", pid), html, truth[pid].get("url", ""))
        text = plain_body(document) if document is not None else ""
        empty += not text.strip()
        article_scores.append(shingle_scores(text, truth[pid]["articleBody"]))
    web, annotations = load_web_pages(corpora / "web-pages-dev")
    web_scores = []
    for pid, html in web.items():
        document = _extract(pick("web-pages-dev", pid), html, "")
        text = plain_body(document, with_title=True) if document is not None else ""
        empty += not text.strip()
        web_scores.append(segment_score(text, annotations[pid]))
    figures: dict[str, float] = {
        "articles_f1": mean_f1(article_scores)[2],
        "web_f1": segments_prf(web_scores)[2],
        "web_zero_kept_pages": sum(1 for s in web_scores if s.nothing_kept),
    }
    for name, prefix in (("scholarly-html-dev", "scholarly"),
                         ("scholarly-html-dev-2", "scholarly2")):
        folder = corpora / name
        if not folder.is_dir():
            continue
        manifest = json.loads((folder / "manifest.json").read_text())
        scholarly = []
        junk = titles = 0
        for entry in manifest:
            html = (folder / entry["file"]).read_bytes()
            url = entry.get("source_url_from_page") or "https://example.org/"
            document = _extract(pick(name, entry["id"]), html, url)
            empty += document is None
            scholarly.append(scholarly_score(entry, document))
            text = collapse(document.text) if document is not None else ""
            junk += any(collapse(p) in text for p in entry.get("junk_probes") or [])
            titles += document is not None and bool(MARKUP.search(document.metadata.title or ""))
        full = [s for s in scholarly if s.full_text]
        figures |= {
            f"{prefix}_heading_recall": (
                min((s.heading_recall for s in full), default=1.0) if prefix == "scholarly"
                else sum(s.heading_recall for s in full) / max(len(full), 1)),
            f"{prefix}_sentences_missing": sum(len(s.sentences_missing) for s in scholarly),
            f"{prefix}_incomplete_reference_lists": sum(1 for s in scholarly
                                                        if not s.references_complete),
            f"{prefix}_pages_with_junk_probes": junk,
            f"{prefix}_titles_with_markup": titles,
        }
        if prefix == "scholarly":
            figures |= {
                "scholarly_pages_with_chrome": sum(1 for s in scholarly if s.chrome),
                "scholarly_pages_without_title_heading": sum(1 for s in scholarly
                                                             if not s.title_heading)}
    figures["empty_pages"] = empty
    return figures


def load_floors(path: Path = FLOORS) -> dict[str, dict[str, float]]:
    floors: dict[str, dict[str, float]] = json.loads(path.read_text())["floors"]
    return floors


def floor_failures(figures: dict[str, float], floors: dict[str, dict[str, float]]) -> list[str]:
    """One line per figure outside its pinned bound (`min` or `max`); a floor naming a
    figure that was not computed is a failure too, so a renamed figure cannot pass."""
    failures = []
    for name, bound in sorted(floors.items()):
        if name not in figures:
            failures.append(f"{name}: no such figure")
            continue
        value = figures[name]
        if "min" in bound and value < bound["min"]:
            failures.append(f"{name} = {value:.4f}, below the floor {bound['min']}")
        if "max" in bound and value > bound["max"]:
            failures.append(f"{name} = {value:.4f}, above the ceiling {bound['max']}")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    args = parser.parse_args()
    if not corpora_present(args.corpora):
        print(f"corpora not found under {args.corpora}", file=sys.stderr)
        return 2
    figures: dict[str, Any] = gate_figures(args.corpora)
    for name, value in figures.items():
        print(f"{name:<40} {value:.4f}")
    failures = floor_failures(figures, load_floors())
    print("gate: " + ("; ".join(failures) if failures else "pass"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
