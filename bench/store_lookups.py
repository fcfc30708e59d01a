"""Lookups by key in the DuckDB store with and without its lookup indexes (ADR-0050), on
generated stores of several sizes, interleaved in one run.

    .venv/bin/python -m bench.store_lookups [--documents 5000 20000 50000] [--runs 200]

Each store holds `documents` generated documents of two snippets (bench/generated_text.py),
written through the unit of work in batches, then copied: one copy keeps no lookup index
(as a store below `INDEXED_FROM_ROWS` rows has none), the other is given every one
(`lookup_indexes.make_grown` with the threshold at 0). On each, the same random keys are
looked up through the store's own reads, the two copies taking turns key by key: a
document by id (`catalogue.find`), a snippet by id (as a search's hits are read from a
space too large to keep), a version's chunks (`catalogue.chunks`). Printed per size and
read: CPU p50 and p95 in ms, and the ratio of the scan to the index; the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from bench.generated_text import TextSource, snippet_document
from sheaf.adapters.store.duckdb import lookup_indexes
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.search_index import DuckDbSearchIndex
from sheaf.domain.store.version_bundle import VersionBundle

BATCH = 500


async def build(path: Path, documents: int) -> None:
    store = DuckDbKnowledgeStore(path)
    source = TextSource(seed=documents)
    for start in range(0, documents, BATCH):
        async with store.storage().unit_of_work() as work:
            for number in range(start, min(documents, start + BATCH)):
                record, ref, chunks = snippet_document(number, 2, lambda: source.paragraph(40))
                work.versions.add(VersionBundle(record, ref, chunks=chunks))
            await work.commit()
    await store.aclose()


async def index_all(path: Path) -> None:
    lookup_indexes.INDEXED_FROM_ROWS = 0
    store = DuckDbKnowledgeStore(path)
    await store.connection.run(lookup_indexes.make_grown)
    await store.aclose()


Read = Callable[[DuckDbKnowledgeStore, int], Awaitable[object]]

READS: dict[str, Read] = {
    "document by id": lambda s, n: s.catalogue.find("default", f"doc_{n:08d}"),
    # What a search's hits read when the space's snippets are not kept (a large space).
    "snippet by id": lambda s, n: s.connection.read(lambda c: DuckDbSearchIndex._snippets_by_id(
        c, [f"doc_{n:08d}.v1:snippet:1"])),
    "a version's chunks": lambda s, n: s.catalogue.chunks("default", f"doc_{n:08d}.v1"),
}


async def measure(plain: Path, indexed: Path, documents: int, runs: int) -> None:
    stores = {"scan": DuckDbKnowledgeStore(plain), "index": DuckDbKnowledgeStore(indexed)}
    made = await stores["index"].connection.read(lookup_indexes.existing)
    assert made == set(lookup_indexes.LOOKUP_INDEXES) - {"text_terms_term"} or \
        made == set(lookup_indexes.LOOKUP_INDEXES), made
    assert await stores["scan"].connection.read(lookup_indexes.existing) == set()
    rng = random.Random(documents)
    for label, read in READS.items():
        times: dict[str, list[float]] = {"scan": [], "index": []}
        for n in (rng.randrange(documents) for _ in range(runs)):
            for name, store in stores.items():
                started = time.process_time()
                found = await read(store, n)
                times[name].append((time.process_time() - started) * 1000)
                assert found, (label, n)
        p50 = {k: statistics.median(v) for k, v in times.items()}
        p95 = {k: sorted(v)[int(0.95 * (len(v) - 1))] for k, v in times.items()}
        print(f"{documents:>7} docs  {label:<19} scan p50 {p50['scan']:6.3f} p95 "
              f"{p95['scan']:6.3f}  index p50 {p50['index']:6.3f} p95 {p95['index']:6.3f}  "
              f"scan/index {p50['scan'] / p50['index']:5.2f}x  load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    for store in stores.values():
        await store.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, nargs="+", default=[5000, 20000, 50000])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for documents in args.documents:
            plain, indexed = Path(tmp) / f"plain-{documents}.duckdb", \
                Path(tmp) / f"indexed-{documents}.duckdb"
            started = time.perf_counter()
            lookup_indexes.INDEXED_FROM_ROWS = 10 ** 12
            anyio.run(build, plain, documents)
            shutil.copy(plain, indexed)
            anyio.run(index_all, indexed)
            lookup_indexes.INDEXED_FROM_ROWS = 10 ** 12  # the plain copy stays plain
            print(f"built {documents} documents in {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
            anyio.run(measure, plain, indexed, documents, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
