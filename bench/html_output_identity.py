"""Digests of the HTML extractor's output on every page of the four HTML dev corpora, to
show that a speed change leaves every extraction identical (issue 36).

    .venv/bin/python -m bench.html_output_identity --output before.json [--folds]
    .venv/bin/python -m bench.html_output_identity --output after.json [--folds]
    .venv/bin/python -m bench.html_output_identity --compare before.json after.json

Each page is extracted in this process (`Html5libExtractor.extract_sync`, the shipped
block model; `--folds` adds a second digest per page with the fold model the
cross-validated bench uses) and its `extract --format json` rendering is digested with
SHA-256, or its typed error's kind and message when it has none. `--compare` prints the
pages that differ and exits 1 when any do. Nothing in the rendering varies between runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.digest_comparison import compare_digests, rendered_digest
from bench.html_cross_validated import SCHOLARLY, fold_models
from bench.html_folds import load_folds
from bench.html_quality import CORPORA, load_articles, load_web_pages
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor


def corpus_pages(corpora: Path) -> list[tuple[str, str, bytes, str]]:
    """(corpus, page id, bytes, url) for every page of the four HTML dev corpora."""
    jobs: list[tuple[str, str, bytes, str]] = []
    pages, truth = load_articles(corpora / "articles-dev")
    jobs += [("articles-dev", p, pages[p], truth[p].get("url", "")) for p in pages]
    web, _ = load_web_pages(corpora / "web-pages-dev")
    jobs += [("web-pages-dev", p, web[p], "") for p in web]
    for name in SCHOLARLY:
        for entry in json.loads((corpora / name / "manifest.json").read_text()):
            jobs.append((name, entry["id"], (corpora / name / entry["file"]).read_bytes(),
                         entry.get("source_url_from_page") or "https://example.org/"))
    return jobs


def digest(extractor: Html5libExtractor, raw: bytes, url: str) -> str:
    return rendered_digest(lambda: extractor.extract_sync(raw, url))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--folds", action="store_true", help="digest the fold models' output too")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare_digests(*args.compare, "pages")
    if args.output is None or not (args.corpora / "web-pages-dev").is_dir():
        print("--output is needed, and the corpora must be present", file=sys.stderr)
        return 2
    shipped = Html5libExtractor()
    folds = load_folds() if args.folds else {}
    by_fold = {f: Html5libExtractor(block_model=m) for f, m in fold_models().items()} \
        if args.folds else {}
    digests: dict[str, str] = {}
    for corpus, page, raw, url in corpus_pages(args.corpora):
        digests[f"{corpus}/{page}"] = digest(shipped, raw, url)
        if args.folds:
            digests[f"{corpus}/{page}#fold"] = digest(by_fold[folds[corpus][page]], raw, url)
    args.output.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} digests written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
