"""Ingest throughput as a PostgreSQL store grows: documents/s in each block of 5,000
small documents up to 30,000, each block's ratio to the first, and what the
near-duplicate check costs at the end.

    .venv/bin/python -P bench/postgres_ingest_growth.py [--documents 30000] [--block 5000]
        [--embedder hashing]

The documents are bench/store_ingest.py's Markdown notes (a title, three sections of two
70-word paragraphs from a 20,000-word Zipf vocabulary), written to a temporary folder
block by block before the block is timed, and ingested through `Knowledge.ingest_many`
(the path `sheaf ingest` takes, 4 at a time) into a throwaway embedded PostgreSQL on
loopback. The target (issue 35): the last block's documents/s within 20% of the first's.
The near-duplicate check is timed at the end on its own, through the store's
`similar_documents`, for 200 of the stored documents' fingerprints.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generated_text import TextSource
from bench.store_ingest import ingest, write_notes
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.search.feature_hashing import shingle_fingerprint
from sheaf.entrypoints.api.knowledge import Knowledge
from tests.postgres_server import running_postgres

NEAR_DUPLICATE_PROBES = 200


async def near_duplicate_ms(url: str, folder: Path, count: int) -> tuple[float, float]:
    """p50 and p95 ms of the near-duplicate lookup for `count` stored notes' texts."""
    store = await PostgresKnowledgeStore.connect(url, max_size=2)
    seconds = []
    try:
        for path in sorted((folder / "notes").iterdir())[:count]:
            fingerprint = shingle_fingerprint(path.read_text())
            began = time.perf_counter()
            await store.index.similar_documents("default", fingerprint, 0.95)
            seconds.append(time.perf_counter() - began)
    finally:
        await store.aclose()
    ordered = sorted(seconds)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000)


async def measure(url: str, args: argparse.Namespace, folder: Path) -> None:
    source = TextSource(seed=5000)
    rows = []
    async with Knowledge.open(url, embedder=args.embedder) as kb:
        for first in range(0, args.documents, args.block):
            last = min(args.documents, first + args.block)
            paths = write_notes(folder / "notes", first, last, source)
            started = time.perf_counter()
            await ingest(kb, paths)
            elapsed = time.perf_counter() - started
            rows.append((last, (last - first) / elapsed, os.getloadavg()[0]))
            print(f"  {last} documents stored ({rows[-1][1]:.1f} docs/s)", file=sys.stderr,
                  flush=True)
    p50, p95 = await near_duplicate_ms(url, folder, NEAR_DUPLICATE_PROBES)
    print(f"\ningest into one PostgreSQL store, embedder {args.embedder}, blocks of "
          f"{args.block} documents")
    print(f"{'documents':>9} {'docs/s':>8} {'vs first':>9} {'load':>6}")
    for last, rate, load in rows:
        print(f"{last:>9} {rate:8.1f} {rate / rows[0][1]:8.2f}x {load:6.1f}")
    print(f"near-duplicate lookup at {args.documents} documents: p50 {p50:.1f} ms, p95 "
          f"{p95:.1f} ms ({NEAR_DUPLICATE_PROBES} stored notes' fingerprints)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=30_000)
    parser.add_argument("--block", type=int, default=5_000)
    parser.add_argument("--embedder", default="hashing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, running_postgres(
            {"shared_buffers": "512MB", "max_wal_size": "4GB"}) as server:
        # The blobs of a PostgreSQL store without SHEAF_BLOBS go under the data home.
        os.environ["XDG_DATA_HOME"] = folder
        os.environ.pop("SHEAF_BLOBS", None)
        url = server.url(server.create_database("ingest_growth"))
        anyio.run(measure, url, args, Path(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
