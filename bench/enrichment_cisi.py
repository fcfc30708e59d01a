"""Retrieval on ../shared/corpora/retrieval-cisi with and without LLM context prefixes.

    SHEAF_LLM_BASE_URL=http://127.0.0.1:11434/v1 SHEAF_LLM_MODEL=llama3.2 \\
        .venv/bin/python -P bench/enrichment_cisi.py [--embedder local] [--limit N]

Ingests the collection into a temporary store, measures nDCG@10, MRR@10 and Recall@100
for bm25 and hybrid, then adds context prefixes to every snippet (`reindex --enrich
context`, cached) and measures again in the same run. Needs an OpenAI-compatible chat
endpoint; without SHEAF_LLM_BASE_URL it says so and exits 0 without measuring.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import anyio

from sheaf.application.ingestion import IngestOptions
from sheaf.application.retrieval_evaluation import evaluate_search
from sheaf.domain.enrichment import EnrichmentKind
from sheaf.domain.search_request import SearchMode
from sheaf.entrypoints.composition import (
    build_embedder,
    build_knowledge,
    build_language_model,
    token_budget,
)
from sheaf.entrypoints.configuration import http_settings

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "retrieval-cisi"


async def run(corpus: list[dict[str, str]], queries: list[tuple[str, str]],
              qrels: dict[str, dict[str, int]], spec: str, work: Path) -> None:
    folder = work / "docs"
    folder.mkdir()
    names = {}
    for doc in corpus:
        path = folder / f"cisi-{doc['id']}.md"
        path.write_text(f"# {doc['title']}\n\n{doc['text']}\n")
        names[str(path)] = doc["id"]
    services = build_knowledge(http_settings(), work / "cisi.duckdb",
                               embedder=build_embedder(spec),
                               language_model=build_language_model(), budget=token_budget())
    try:
        to_cisi: dict[str, str] = {}
        for path in names:
            result = await services.ingestion.ingest(path, IngestOptions(
                enrich=frozenset()))
            if result.document_id:
                to_cisi[result.document_id] = names[path]
        modes = (SearchMode.BM25, SearchMode.HYBRID)
        before = [await evaluate_search(services.search, "default", queries, qrels, to_cisi,
                                        m) for m in modes]
        started = time.perf_counter()
        await services.reindexing.reindex("default", chunks=False,
                                          enrich=frozenset({EnrichmentKind.CONTEXT}))
        seconds = time.perf_counter() - started
        after = [await evaluate_search(services.search, "default", queries, qrels, to_cisi,
                                       m) for m in modes]
        assert services.enrichment is not None
        print(f"CISI: {len(to_cisi)} documents, {len(queries)} judged queries; "
              f"model {services.enrichment.model.name}, embedder {spec}; contexts took "
              f"{seconds:.0f} s and {services.enrichment.budget.spent} tokens")
        print(f"{'mode':<8} {'prefixes':<9} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8}")
        for label, reports in (("without", before), ("with", after)):
            for report in reports:
                print(f"{report.label:<8} {label:<9} {report.ndcg_at_10:8.3f} "
                      f"{report.mrr_at_10:8.3f} {report.recall_at_100:8.3f}")
    finally:
        await services.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--limit", type=int, help="only the first N documents")
    args = parser.parse_args()
    if not os.environ.get("SHEAF_LLM_BASE_URL"):
        print("skipped: no language model endpoint. Set SHEAF_LLM_BASE_URL (an "
              "OpenAI-compatible /v1 API) and SHEAF_LLM_MODEL to measure context prefixes.")
        return 0
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    corpus = [json.loads(line) for line in (args.corpus / "corpus.jsonl").open()]
    corpus = corpus[:args.limit] if args.limit else corpus
    kept = {d["id"] for d in corpus}
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (args.corpus / "qrels.tsv").read_text().splitlines()[1:]:
        query, doc, grade = line.split("\t")
        if doc in kept:
            qrels[query][doc] = int(grade)
    queries = [(q["id"], q["text"]) for q in map(json.loads, (args.corpus / "queries.jsonl")
                                                   .open()) if q["id"] in qrels]
    with tempfile.TemporaryDirectory() as folder:
        anyio.run(run, corpus, queries, dict(qrels), args.embedder, Path(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
