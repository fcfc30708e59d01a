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
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio

from sheaf.domain.search.search_request import SearchMode
from sheaf.entrypoints.api.knowledge import Knowledge
from sheaf.entrypoints.api.retrieval_collection import RetrievalCollection, ingest_collection
from sheaf.entrypoints.api.settings import Settings

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "retrieval-cisi"


async def run(collection: RetrievalCollection, spec: str, work: Path) -> None:
    settings = Settings.from_environment(os.environ, store=work / "cisi.duckdb",
                                         embedder=spec)
    assert settings.language_model is not None, "set SHEAF_LLM_BASE_URL and SHEAF_LLM_MODEL"
    async with Knowledge.open(settings=settings) as kb:
        # Ingested plain first: the space's own enrichment setting does not apply here.
        to_cisi = await ingest_collection(kb, collection.corpus, work / "docs", enrich="")
        queries, qrels = collection.queries, collection.qrels
        modes = (SearchMode.BM25, SearchMode.HYBRID)
        before = [await kb.evaluate_retrieval(queries, qrels, to_cisi, m) for m in modes]
        started = time.perf_counter()
        await kb.reindex(chunks=False, enrich="context")
        seconds = time.perf_counter() - started
        after = [await kb.evaluate_retrieval(queries, qrels, to_cisi, m) for m in modes]
        print(f"CISI: {len(to_cisi)} documents, {len(queries)} judged queries; "
              f"model {settings.language_model.model}, embedder {spec}; contexts took "
              f"{seconds:.0f} s")
        print(f"{'mode':<8} {'prefixes':<9} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8}")
        for label, reports in (("without", before), ("with", after)):
            for report in reports:
                print(f"{report.label:<8} {label:<9} {report.ndcg_at_10:8.3f} "
                      f"{report.mrr_at_10:8.3f} {report.recall_at_100:8.3f}")


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
    collection = RetrievalCollection.load(args.corpus, args.limit)
    with tempfile.TemporaryDirectory() as folder:
        anyio.run(run, collection, args.embedder, Path(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
