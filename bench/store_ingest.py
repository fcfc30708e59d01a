"""Ingest throughput as the DuckDB store grows: time per document at 500, 2,000 and 5,000
generated documents in one store, documents/s and snippets/s, and peak RSS.

    .venv/bin/python -m bench.store_ingest [--sizes 500 2000 5000] [--window 100]
        [--embedder hashing]

Markdown notes (a title, three sections of two 70-word paragraphs, from the 20,000-word
Zipf vocabulary of bench/generated_text.py) are written to a temporary folder and ingested
through `Knowledge.ingest_many`, the path `sheaf ingest` takes. The store is filled up to
each size; the last `window` documents before it are timed on their own, so each figure
is the cost of a document arriving in a store of that size. Printed: ms per document and
its ratio to the smallest size's (the target: within 1.5x at 5,000 of 500), the median
over the window's slices of 20 documents of their ms/doc and its ratio (robust to a busy
moment of a shared machine), documents/s and snippets/s of the window, and the process's
peak RSS so far.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import anyio

from bench.generated_text import TextSource
from sheaf.entrypoints.api.knowledge import Knowledge

CONCURRENCY = 4
"""What `ingest_many` runs at once by default."""
SLICE = 20
"""Documents per slice of a window, for the median."""


def write_notes(folder: Path, first: int, last: int, source: TextSource) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(first, last):
        path = folder / f"note{n:06d}.md"
        path.write_text(source.markdown(f"Note {n}", 3, 2, 70))
        paths.append(str(path))
    return paths


async def ingest(kb: Knowledge, paths: list[str]) -> list[float]:
    """Ingest `paths`; the moment (perf_counter) each document finished."""
    finished = []
    async for event in kb.ingest_many(paths, concurrency=CONCURRENCY):
        finished.append(time.perf_counter())
        if event.result.error_kind:
            raise SystemExit(f"{event.result.source}: {event.result.message}")
    return finished


async def snippet_count(kb: Knowledge, paths: list[str]) -> int:
    total = 0
    for path in paths:
        total += sum(1 for c in await kb.chunks(path) if c.level == "snippet")
    return total


async def measure(sizes: list[int], window: int, embedder: str, folder: Path) -> None:
    source = TextSource(seed=5000)
    done = 0
    rows = []
    async with Knowledge.open(folder / "kb.duckdb", embedder=embedder) as kb:
        for size in sizes:
            start = max(done, size - window)
            if start > done:
                await ingest(kb, write_notes(folder / "notes", done, start, source))
            timed = write_notes(folder / "notes", start, size, source)
            started = time.perf_counter()
            finished = await ingest(kb, timed)
            elapsed = time.perf_counter() - started
            # Per document within each slice of the window: the median slice is not moved
            # by one busy moment of a shared machine (nor by one checkpoint).
            ends = [started, *finished[SLICE - 1::SLICE]]
            slices = [(b - a) / SLICE for a, b in pairwise(ends)]
            snippets = await snippet_count(kb, timed)
            done = size
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            rows.append((size, elapsed / len(timed), statistics.median(slices),
                         len(timed) / elapsed, snippets / elapsed, peak))
            print(f"  {size} documents stored", file=sys.stderr)
    base, base_median = rows[0][1], rows[0][2]
    print(f"\ningest into one store, embedder {embedder}, the last {window} documents "
          "before each size timed")
    print(f"{'documents':>9} {'ms/doc':>8} {'vs first':>9} {'median':>8} {'vs first':>9} "
          f"{'docs/s':>8} {'snippets/s':>11} {'peak RSS MB':>12}")
    for size, per_document, median, documents, snippets, peak in rows:
        print(f"{size:>9} {per_document * 1000:8.1f} {per_document / base:8.2f}x "
              f"{median * 1000:8.1f} {median / base_median:8.2f}x "
              f"{documents:8.1f} {snippets:11.1f} {peak:12.0f}")
    print(f"(ms/doc: the window's time over its documents, checkpoints included; median: "
          f"the median over the window's slices of {SLICE} documents of their ms/doc; "
          f"load average at the end {os.getloadavg()[0]:.2f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 5000])
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--embedder", default="hashing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        anyio.run(measure, sorted(args.sizes), args.window, args.embedder, Path(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
