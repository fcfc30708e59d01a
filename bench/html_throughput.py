"""HTML throughput beside trafilatura, in one process and through `sheaf extract`, one run.

    .venv/bin/python -m bench.html_throughput [--corpora DIR] [--rounds N]
        [--only CORPUS ...] [--sheaf PATH]

Over the pages of the HTML dev corpora (all four unless `--only`), in turns within each
round:
- sheaf in this process: `Html5libExtractor.extract_sync` on each page's bytes;
- trafilatura 2.3.1 in this process (`extract`, plain text with tables, as
  bench/html_cross_validated.py calls it);
- `sheaf extract --format json --output-dir OUT` over the same pages written out as
  files, in a child process (its start-up included, spread over every page).

For each, pages/s by wall clock (best of N rounds: this machine's load only ever adds
time) and by CPU seconds (the process's own, or the child's, summed over user and
system; steadier under load), and each sheaf figure as a ratio to trafilatura's from
the same round. Issue 36 asks for >= 0.75x both ways.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.html_extraction import trafilatura_plain
from bench.html_output_identity import corpus_pages
from bench.html_quality import CORPORA
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.errors import SheafError


def _in_process(run: Callable[[bytes, str], object], jobs: list[tuple[bytes, str]]
                ) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for raw, url in jobs:
        run(raw, url)
    return time.perf_counter() - wall, time.process_time() - cpu


def _through_cli(sheaf: str, files: list[str], out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run([sheaf, "extract", "--format", "json", "--output-dir", str(out),
                           *files], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: some inputs failed, each named on stderr
        raise SystemExit(f"sheaf extract failed ({done.returncode}): {done.stderr[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--sheaf", default=str(Path(sys.executable).with_name("sheaf")),
                        help="the sheaf executable (default: beside this Python)")
    args = parser.parse_args()
    if not (args.corpora / "web-pages-dev").is_dir():
        print(f"corpora not found: {args.corpora}", file=sys.stderr)
        return 2
    pages = [p for p in corpus_pages(args.corpora) if not args.only or p[0] in args.only]
    jobs = [(raw, url) for _, _, raw, url in pages]
    extractor = Html5libExtractor()

    def sheaf(raw: bytes, url: str) -> object:
        try:
            return extractor.extract_sync(raw, url)
        except SheafError:
            return None

    best: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="sheaf-html-throughput-") as tmp:
        files = []
        for corpus, page, raw, _ in pages:
            path = Path(tmp) / "in" / corpus / f"{page}.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(raw)
            files.append(str(path))
        sheaf(*jobs[0])  # imports and the model load, as a warm process has them
        trafilatura_plain(*jobs[0])
        runs: dict[str, Callable[[], tuple[float, float]]] = {
            "sheaf": lambda: _in_process(sheaf, jobs),
            "trafilatura": lambda: _in_process(trafilatura_plain, jobs),
            "sheaf extract": lambda: _through_cli(args.sheaf, files, Path(tmp) / "out"),
        }
        for _ in range(args.rounds):
            for name, run in runs.items():
                wall, cpu = run()
                kept = best.setdefault(name, [wall, cpu])
                kept[0], kept[1] = min(kept[0], wall), min(kept[1], cpu)
    peer_wall, peer_cpu = best["trafilatura"]
    n = len(jobs)
    print(f"{n} pages ({', '.join(sorted({p[0] for p in pages}))}), best of {args.rounds} "
          f"round(s); load {os.getloadavg()[0]:.1f}")
    print(f"{'':<15} {'pages/s wall':>12} {'ratio':>6} {'pages/cpu-s':>12} {'ratio':>6}")
    for name, (wall, cpu) in best.items():
        print(f"{name:<15} {n / wall:12.1f} {peer_wall / wall:5.2f}x {n / cpu:12.1f} "
              f"{peer_cpu / cpu:5.2f}x")
    print(json.dumps({name: {"wall_ratio": round(peer_wall / w, 3),
                             "cpu_ratio": round(peer_cpu / c, 3)}
                      for name, (w, c) in best.items() if name != "trafilatura"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
