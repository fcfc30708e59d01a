"""Kept and excluded segments on ../shared/corpora/web-pages-dev: sheaf against trafilatura.

    .venv/bin/python -m bench.web_pages [--corpus DIR] [--per-page] [--rounds N]

Metric (trafilatura's evaluation): whitespace-normalise the extracted text; a `with`
segment found is a true positive, a missing one a false negative, a `without` segment
found a false positive; precision, recall and F1 over all segments of all pages. Also
printed: pages with none of their `with` segments kept, pages that raised `empty`, and
pages/s (extraction only, every file read and decompressed beforehand, best of N rounds).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench.html_quality import (
    CORPORA,
    load_web_pages,
    segment_score,
    segments_prf,
    sheaf_text,
    trafilatura_text,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA / "web-pages-dev")
    parser.add_argument("--per-page", action="store_true")
    parser.add_argument("--rounds", type=int, default=1, help="timing rounds (best is kept)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    pages, annotations = load_web_pages(args.corpus)
    results = {}
    for name, extract in (("sheaf", sheaf_text), ("trafilatura", trafilatura_text)):
        elapsed = float("inf")
        for _ in range(args.rounds):  # this machine's noise only ever adds time
            started = time.perf_counter()
            texts = {pid: extract(html, "") for pid, html in pages.items()}
            elapsed = min(elapsed, time.perf_counter() - started)
        scores = {pid: segment_score(texts[pid], annotations[pid]) for pid in pages}
        results[name] = (scores, texts, len(pages) / elapsed)
    print(f"web-pages-dev: {len(pages)} pages")
    print(f"{'tool':<12} {'precision':>9} {'recall':>7} {'F1':>6} {'zero-kept':>9} "
          f"{'empty':>5} {'pages/s':>8}")
    for name, (scores, texts, rate) in results.items():
        p, r, f = segments_prf(scores.values())
        zero = sum(1 for s in scores.values() if s.nothing_kept)
        empty = sum(1 for t in texts.values() if not t.strip())
        print(f"{name:<12} {p:9.3f} {r:7.3f} {f:6.3f} {zero:9d} {empty:5d} {rate:8.1f}")
    ours, theirs = results["sheaf"][0], results["trafilatura"][0]
    more = sum(1 for pid in ours if ours[pid].fp > theirs[pid].fp)
    less = sum(1 for pid in ours if ours[pid].fp < theirs[pid].fp)
    print(f"pages where sheaf kept more boilerplate: {more}, less: {less}")
    ratio = results["sheaf"][2] / results["trafilatura"][2]
    print(f"throughput ratio sheaf/trafilatura: {ratio:.2f}x")
    if args.per_page:
        def balance(pid: str) -> int:
            return (ours[pid].tp - ours[pid].fp) - (theirs[pid].tp - theirs[pid].fp)

        for pid in sorted(ours, key=balance)[:40]:
            a, b = ours[pid], theirs[pid]
            print(f"  {pid} sheaf tp{a.tp} fn{a.fn} fp{a.fp}  trafilatura tp{b.tp} fn{b.fn} "
                  f"fp{b.fp}  {annotations[pid].get('url', '')[:60]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
