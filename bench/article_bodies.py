"""Article-body F1 on ../shared/corpora/articles-dev: sheaf against trafilatura, same run.

    .venv/bin/python -m bench.article_bodies [--corpus DIR] [--per-page] [--rounds N]

Metric (the corpus's own): `\\w+` tokens, word 4-gram shingles with counts; per page
tp/fp/fn are the shingle-count overlaps normalised to sum 1; precision and recall come
from their means over pages; F1 from those two. Throughput counts extraction only, with
every file read and decompressed beforehand.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.html_quality import mean_f1, plain_body, sheaf_document, shingle_scores

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "articles-dev"
def sheaf_extract(html: bytes, url: str) -> str:
    # The truth is the body without its title: the `# ` title heading is left out.
    document = sheaf_document(html, url)
    return plain_body(document) if document is not None else ""


def trafilatura_extract(html: bytes, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def run(extract: Callable[[bytes, str], str], pages: dict[str, bytes],
        truth: dict[str, dict[str, str]], rounds: int
        ) -> tuple[list[tuple[float, float, float]], float,
                                                    dict[str, float]]:
    scores = []
    per_page = {}
    elapsed = float("inf")
    for _ in range(rounds):  # best of N rounds: this machine's noise only ever adds time
        started = time.perf_counter()
        outputs = {pid: extract(html, truth[pid].get("url", "")) for pid, html in pages.items()}
        elapsed = min(elapsed, time.perf_counter() - started)
    for pid, text in outputs.items():
        score = shingle_scores(text, truth[pid]["articleBody"])
        scores.append(score)
        per_page[pid] = mean_f1([score])[2]
    return scores, len(pages) / elapsed, per_page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--per-page", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds (best is kept)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    truth = json.loads((args.corpus / "ground-truth.json").read_text())
    pages = {p.name.split(".")[0]: gzip.decompress(p.read_bytes())
             for p in sorted((args.corpus / "html").glob("*.html.gz"))}
    pages = {k: v for k, v in pages.items() if k in truth}
    results = {}
    for name, extract in (("sheaf", sheaf_extract), ("trafilatura", trafilatura_extract)):
        scores, rate, per_page = run(extract, pages, truth, args.rounds)
        results[name] = (mean_f1(scores), rate, per_page)
    print(f"articles-dev: {len(pages)} pages")
    print(f"{'tool':<12} {'precision':>9} {'recall':>7} {'F1':>6} {'pages/s':>8}")
    for name, ((p, r, f), rate, _) in results.items():
        print(f"{name:<12} {p:9.3f} {r:7.3f} {f:6.3f} {rate:8.1f}")
    ratio = results["sheaf"][1] / results["trafilatura"][1]
    delta = results["sheaf"][0][2] - results["trafilatura"][0][2]
    print(f"throughput ratio sheaf/trafilatura: {ratio:.2f}x; F1 difference: {delta:+.3f}")
    if args.per_page:
        ours, theirs = results["sheaf"][2], results["trafilatura"][2]
        for pid in sorted(ours, key=lambda k: ours[k] - theirs[k])[:25]:
            print(f"  {pid[:16]} sheaf {ours[pid]:.3f} trafilatura {theirs[pid]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
