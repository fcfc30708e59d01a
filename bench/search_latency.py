"""Search latency at 10k and 100k snippets on the DuckDB store: BM25, exact vector scan,
HNSW (vss extension) and hybrid; and what keeping the indices current costs an ingest.

    .venv/bin/python -m bench.search_latency [--sizes 10000 100000] [--queries 100]

Synthetic text (a Zipf vocabulary of 20,000 words, 60-word snippets, 50 per document),
embedded by the hashing embedder (256 dimensions, what sheaf stores by default). Printed
per size: p50 and p95 per mode, the ratio of HNSW to the exact scan, HNSW recall@10 against
the exact scan, and the write costs: one document's save, and the index rebuilds the next
search pays.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

from bench.generated_text import snippet_document
from sheaf.adapters.models.hashing_embedder import HashingEmbedder
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.application.search.search import Search
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.search.embeddings import ChunkVectors
from sheaf.domain.search.search_request import SearchMode
from sheaf.domain.store.ingestion import SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle

PER_DOCUMENT = 50
WORDS = [f"w{i}" for i in range(20_000)]
WEIGHTS = [1 / (rank + 1) for rank in range(len(WORDS))]


def snippet_text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, WEIGHTS, k=60))


def document(number: int, rng: random.Random) -> tuple[VersionRecord, SourceRef,
                                                         tuple[Chunk, ...]]:
    return snippet_document(number, PER_DOCUMENT, lambda: snippet_text(rng))


async def fill(store: DuckDbKnowledgeStore, embedder: HashingEmbedder, documents: int,
               rng: random.Random) -> None:
    model = await embedder.model()
    for number in range(documents):
        record, source, chunks = document(number, rng)
        vectors = await embedder.embed([c.retrieval_text for c in chunks])
        await save(store, VersionBundle(record, source, chunks=chunks, vectors=ChunkVectors(
            model, tuple(c.id for c in chunks), tuple(vectors))))
        if number % 200 == 0:
            print(f"  {number * PER_DOCUMENT} snippets", file=sys.stderr, end="\r")


async def save(store: DuckDbKnowledgeStore, bundle: VersionBundle) -> None:
    async with store.storage().unit_of_work() as work:
        work.versions.add(bundle)
        await work.commit()


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000)


async def measure(size: int, queries: int, work: Path) -> None:
    rng = random.Random(size)
    store = DuckDbKnowledgeStore(work / f"latency-{size}.duckdb")
    embedder = HashingEmbedder()
    started = time.perf_counter()
    await fill(store, embedder, size // PER_DOCUMENT, rng)
    print(f"{size} snippets loaded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    search = Search(store.storage(), embedder)
    texts = [" ".join(rng.choices(WORDS[50:5000], k=rng.randint(3, 8)))
             for _ in range(queries)]
    await search.search("default", "warm up", 10, mode=SearchMode.BM25)  # builds the index
    results: dict[str, list[float]] = {}
    tops: dict[str, list[list[str]]] = {}
    for label, mode in (("bm25", SearchMode.BM25), ("vector exact", SearchMode.VECTOR),
                        ("hybrid exact", SearchMode.HYBRID)):
        results[label], tops[label] = await timed(search, mode, texts)
    built = time.perf_counter()
    indexed = await store.hnsw_index.build("default")
    build_seconds = time.perf_counter() - built
    if indexed:
        for label, mode in (("vector hnsw", SearchMode.VECTOR),
                            ("hybrid hnsw", SearchMode.HYBRID)):
            results[label], tops[label] = await timed(search, mode, texts)
    print(f"\n{size} snippets, {queries} queries, k=10")
    print(f"{'mode':<14} {'p50 ms':>8} {'p95 ms':>8}")
    for label, samples in results.items():
        p50, p95 = percentiles(samples)
        print(f"{label:<14} {p50:8.1f} {p95:8.1f}")
    if indexed:
        recall = statistics.mean(len(set(a) & set(b)) / max(1, len(a)) for a, b in
                                 zip(tops["vector exact"], tops["vector hnsw"], strict=True))
        exact, hnsw = (percentiles(results[k])[0] for k in ("vector exact", "vector hnsw"))
        print(f"hnsw/exact p50: {hnsw / exact:.2f}x; hnsw recall@10 vs exact: {recall:.2f}; "
              f"hnsw build {build_seconds:.1f} s")
        await store.hnsw_index.drop("default")
    # What an ingest costs the indices: the row writes, then the full-text rebuild that
    # the first search after a write pays.
    saves, rebuilds = [], []
    model = await embedder.model()
    for extra in range(3):
        record, source, chunks = document(size // PER_DOCUMENT + extra, rng)
        vectors = await embedder.embed([c.retrieval_text for c in chunks])
        started = time.perf_counter()
        await save(store, VersionBundle(record, source, chunks=chunks, vectors=ChunkVectors(
            model, tuple(c.id for c in chunks), tuple(vectors))))
        saves.append(time.perf_counter() - started)
        started = time.perf_counter()
        await search.search("default", texts[0], 10, mode=SearchMode.HYBRID)
        rebuilds.append(time.perf_counter() - started)
    print(f"one document ({PER_DOCUMENT} snippets) saved with vectors: "
          f"{statistics.median(saves) * 1000:.0f} ms; the next hybrid search, which rebuilds "
          f"the full-text index and reloads the vectors: "
          f"{statistics.median(rebuilds) * 1000:.0f} ms")
    await store.aclose()


async def timed(search: Search, mode: SearchMode, texts: list[str]
                ) -> tuple[list[float], list[list[str]]]:
    samples, tops = [], []
    for text in texts:
        started = time.perf_counter()
        hits = await search.search("default", text, 10, mode=mode, with_documents=False)
        samples.append(time.perf_counter() - started)
        tops.append([h.chunk.id for h in hits])
    return samples, tops


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            anyio.run(measure, size, args.queries, Path(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
