"""Ingest throughput as a PostgreSQL store grows: documents/s in each block of 5,000
small documents up to 30,000, each block's ratio to the first, and what the
near-duplicate lookup costs after each block.

    .venv/bin/python -P bench/postgres_ingest_growth.py [--documents 30000] [--block 5000]
        [--embedder hashing]

The documents are bench/store_ingest.py's Markdown notes (a title, three sections of two
70-word paragraphs from a 20,000-word Zipf vocabulary), written to a temporary folder
block by block before the block is timed, and ingested through `Knowledge.ingest_many`
(the path `sheaf ingest` takes, 4 at a time) into a throwaway embedded PostgreSQL on
loopback. The target (issue 35): the last block's documents/s within 20% of the first's.
After each block the near-duplicate lookup is timed on its own for 50 stored
fingerprints, through the store's `similar_documents` (the fingerprints' HNSW index,
schema 3) and by the exact scan schema 2 ran below 20,000 fingerprints, with how often
the two answers agree.
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
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generated_text import TextSource
from bench.store_ingest import ingest, write_notes
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.application.ingestion.ingestion import NEAR_DUPLICATE_THRESHOLD as THRESHOLD
from sheaf.entrypoints.api.knowledge import Knowledge
from tests.postgres_server import running_postgres

NEAR_DUPLICATE_PROBES = 50
EXACT_SCAN = (
    "SELECT document_id, similarity FROM (SELECT document_id, 1 - (fingerprint <=> "
    "%(probe)s) AS similarity FROM fingerprints WHERE space = %(space)s) f WHERE "
    "similarity >= %(threshold)s ORDER BY similarity DESC, document_id")
"""The near-duplicate lookup of schema 2 below 20,000 fingerprints: every one scanned."""


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000)


async def near_duplicate_ms(url: str) -> tuple[float, float, float, float, int]:
    """p50 and p95 ms of the store's near-duplicate lookup and of the exact scan (its
    peer at the same moment) for stored fingerprints, and how many of the two answers
    agree."""
    store = await PostgresKnowledgeStore.connect(url, max_size=2)
    index, exact, same = [], [], 0
    try:
        probes = await store.connection.rows(
            "SELECT fingerprint FROM fingerprints ORDER BY random() LIMIT %s",
            (NEAR_DUPLICATE_PROBES,))
        for (stored,) in probes:
            probe = tuple(float(x) for x in np.asarray(stored.to_numpy()))
            began = time.perf_counter()
            found = await store.index.similar_documents("default", probe, THRESHOLD)
            index.append(time.perf_counter() - began)
            began = time.perf_counter()
            scanned = await store.connection.rows(EXACT_SCAN, {
                "probe": np.asarray(probe, dtype=np.float32), "space": "default",
                "threshold": THRESHOLD})
            exact.append(time.perf_counter() - began)
            same += [d for d, _ in found] == [str(r[0]) for r in scanned]
    finally:
        await store.aclose()
    return (*percentiles(index), *percentiles(exact), same)


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
            load = os.getloadavg()[0]
            rows.append((last, (last - first) / elapsed, load, *await near_duplicate_ms(url)))
            print(f"  {last} documents stored ({rows[-1][1]:.1f} docs/s)", file=sys.stderr,
                  flush=True)
    print(f"\ningest into one PostgreSQL store, embedder {args.embedder}, blocks of "
          f"{args.block} documents; near-duplicate lookup after each block for "
          f"{NEAR_DUPLICATE_PROBES} stored fingerprints, through the store and by the exact "
          "scan (its peer), in ms")
    print(f"{'documents':>9} {'docs/s':>8} {'vs first':>9} {'load':>6} {'lookup p50':>11} "
          f"{'p95':>7} {'exact p50':>10} {'p95':>7} {'same':>6}")
    for last, rate, load, p50, p95, exact50, exact95, same in rows:
        print(f"{last:>9} {rate:8.1f} {rate / rows[0][1]:8.2f}x {load:6.1f} {p50:11.1f} "
              f"{p95:7.1f} {exact50:10.1f} {exact95:7.1f} {same:>3}/{NEAR_DUPLICATE_PROBES}")


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
