"""Retrieval quality on ../shared/corpora/retrieval-cisi: sheaf's BM25 and bm25s, same run.

    .venv/bin/python -P bench/retrieval_cisi.py   (needs the bench extra: bm25s, PyStemmer)

The 1,460 documents are ingested into a temporary DuckDB store through sheaf's own
pipeline (Markdown files: title heading, then the text). Snippet hits are folded into a
document ranking by each document's best snippet. Printed: nDCG@10, MRR@10 and
Recall@100 over the judged queries, for sheaf (bm25 mode) and for bm25s with English
stopwords and the Snowball stemmer.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import anyio

from sheaf.application.ingestion import IngestOptions
from sheaf.entrypoints.composition import build_knowledge
from sheaf.entrypoints.configuration import http_settings

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "retrieval-cisi"


def metrics(ranking: dict[str, list[str]], qrels: dict[str, dict[str, int]]
            ) -> tuple[float, float, float]:
    ndcg = mrr = recall = 0.0
    for query, relevant in qrels.items():
        ranked = ranking.get(query, [])
        dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
        ideal = sum(g / math.log2(i + 2)
                    for i, g in enumerate(sorted(relevant.values(), reverse=True)[:10]))
        ndcg += dcg / ideal if ideal else 0.0
        mrr += next((1 / (i + 1) for i, d in enumerate(ranked[:10]) if d in relevant), 0.0)
        recall += len(set(ranked[:100]) & set(relevant)) / len(relevant)
    n = len(qrels)
    return ndcg / n, mrr / n, recall / n


async def sheaf_ranking(corpus: list[dict[str, str]], queries: list[dict[str, str]],
                        work: Path) -> tuple[dict[str, list[str]], float]:
    folder = work / "docs"
    folder.mkdir()
    for doc in corpus:
        (folder / f"cisi-{doc['id']}.md").write_text(f"# {doc['title']}\n\n{doc['text']}\n")
    services = build_knowledge(http_settings(), work / "cisi.duckdb")
    try:
        to_cisi: dict[str, str] = {}
        limiter = anyio.CapacityLimiter(4)

        async def one(path: Path) -> None:
            async with limiter:
                result = await services.ingestion.ingest(str(path), IngestOptions())
            if result.document_id:
                to_cisi[result.document_id] = path.stem.removeprefix("cisi-")

        async with anyio.create_task_group() as group:
            for path in sorted(folder.iterdir()):
                group.start_soon(one, path)
        started = time.perf_counter()
        ranking: dict[str, list[str]] = {}
        for query in queries:
            hits = await services.search.search("default", query["text"], 400,
                                                with_documents=False)
            best: dict[str, float] = defaultdict(float)
            for hit in hits:
                cisi = to_cisi.get(hit.document_id)
                if cisi is not None:
                    best[cisi] = max(best[cisi], hit.score)
            ranking[query["id"]] = sorted(best, key=lambda d: -best[d])
        per_query = (time.perf_counter() - started) / len(queries)
    finally:
        await services.aclose()
    return ranking, per_query


def bm25s_ranking(corpus: list[dict[str, str]], queries: list[dict[str, str]]
                  ) -> tuple[dict[str, list[str]], float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    texts = [f"{d['title']} {d['text']}" for d in corpus]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    started = time.perf_counter()
    tokens = bm25s.tokenize([q["text"] for q in queries], stopwords="en", stemmer=stemmer,
                            show_progress=False)
    results, _ = retriever.retrieve(tokens, k=100, show_progress=False)
    per_query = (time.perf_counter() - started) / len(queries)
    return ({q["id"]: [corpus[i]["id"] for i in row] for q, row in zip(queries, results,
                                                                        strict=True)},
            per_query)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    corpus = [json.loads(line) for line in (args.corpus / "corpus.jsonl").open()]
    queries = [json.loads(line) for line in (args.corpus / "queries.jsonl").open()]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (args.corpus / "qrels.tsv").read_text().splitlines()[1:]:
        query, doc, grade = line.split("\t")
        qrels[query][doc] = int(grade)
    judged = [q for q in queries if q["id"] in qrels]
    with tempfile.TemporaryDirectory() as folder:
        ours, ours_latency = anyio.run(sheaf_ranking, corpus, judged, Path(folder))
    theirs, their_latency = bm25s_ranking(corpus, judged)
    print(f"CISI: {len(corpus)} documents, {len(judged)} judged queries")
    print(f"{'system':<14} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8} {'ms/query':>9}")
    for name, ranking, latency in (("sheaf bm25", ours, ours_latency),
                                   ("bm25s", theirs, their_latency)):
        ndcg, mrr, recall = metrics(ranking, qrels)
        print(f"{name:<14} {ndcg:8.3f} {mrr:8.3f} {recall:8.3f} {latency * 1000:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
