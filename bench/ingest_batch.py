"""Ingest 500 generated local documents with --concurrency 4 into a fresh DuckDB store.

    .venv/bin/python -P bench/ingest_batch.py [--documents 500] [--concurrency 4]

Prints the summary check, throughput and the ingest process's peak memory, then the same
for a second run (everything unchanged), and as the peer in the same run, `sheaf extract
--output-dir` over the same files (extraction alone, no store): the ratio is what
storing costs on top of extracting.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pdf_writer import write_pdf  # noqa: E402

SHEAF = str(Path(sys.executable).parent / "sheaf")


def make_corpus(folder: Path, count: int) -> None:
    page = (ROOT / "entrypoints" / "samples" / "article.html").read_text()
    for i in range(count):
        kind = i % 10
        if kind < 6:
            (folder / f"doc{i:04}.html").write_text(
                page.replace("Night Shifts", f"Night Shifts {i}").replace("31 red foxes",
                                                                           f"{i} red foxes"))
        elif kind < 9:
            body = "\n\n".join(f"Paragraph {j} of note {i}: " + "words " * 60 for j in range(8))
            (folder / f"doc{i:04}.md").write_text(f"# Note {i}\n\n{body}\n")
        else:
            (folder / f"doc{i:04}.pdf").write_bytes(write_pdf(
                [("h1", f"Report {i}"), ("h2", "1 Introduction"),
                 ("p", f"Report {i} begins here. " * 80), ("h2", "2 Results"),
                 ("p", "Results follow. " * 80)]))


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str], int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, done, max(peak, before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sheaf-bench-"))
    try:
        folder = work / "docs"
        folder.mkdir()
        make_corpus(folder, args.documents)
        store = work / "kb.duckdb"
        ingest = [SHEAF, "ingest", str(folder), "--store", str(store), "--json",
                  "--concurrency", str(args.concurrency)]
        first_s, first, peak = timed(ingest)
        statuses = Counter(json.loads(line)["status"] for line in first.stdout.splitlines())
        print(f"{args.documents} documents, concurrency {args.concurrency}")
        print(f"first ingest:  {first_s:6.1f} s, {args.documents / first_s:6.1f} docs/s, "
              f"statuses {dict(statuses)}, exit {first.returncode}, "
              f"peak RSS {peak / 1024:.0f} MiB")
        second_s, second, _ = timed(ingest)
        again = Counter(json.loads(line)["status"] for line in second.stdout.splitlines())
        print(f"second ingest: {second_s:6.1f} s, {args.documents / second_s:6.1f} docs/s, "
              f"statuses {dict(again)}")
        extract_s, extracted, _ = timed([SHEAF, "extract", *sorted(map(str, folder.iterdir())),
                                         "--output-dir", str(work / "out")])
        print(f"peer, extract only: {extract_s:6.1f} s, "
              f"{args.documents / extract_s:6.1f} docs/s, exit {extracted.returncode}")
        print(f"ratio ingest/extract throughput: {extract_s / first_s:.2f}x")
        ok = statuses == Counter({"new": args.documents}) and again == Counter(
            {"unchanged": args.documents})
        print("summary right" if ok else "SUMMARY WRONG")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
