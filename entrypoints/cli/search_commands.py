"""`sheaf search`, `sheaf reindex` and `sheaf compact`: ranked snippets, and the indexes
and file they come from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...domain.document.resolved_content import ContentSource
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.search_request import MAX_RESULTS, Expansion, SearchMode
from ..api import serialisation
from ..api.serialisation import as_received
from ..api.settings import READING, Group
from .citation_text import cited_source, shown_title
from .cli_options import (
    KEY_VALUE,
    json_option,
    settings_for,
    store_option,
    store_options,
)
from .cli_session import (
    echo_json,
    interactive,
    progress,
    with_knowledge,
    with_knowledge_api,
)
from .terminal_text import one_line

if TYPE_CHECKING:
    from ..api.knowledge import Knowledge
    from ..api.knowledge_api import KnowledgeApi


def register(group: click.Group) -> None:
    group.add_command(search)
    group.add_command(reindex)
    group.add_command(compact)


@click.command()
@click.argument("query", required=False)
@click.option("--queries", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help='a JSON-lines file of {"id", "text"}: one result line each')
@click.option("--k", type=click.IntRange(1, MAX_RESULTS), default=10, show_default=True)
@click.option("--mode", type=click.Choice([m.value for m in SearchMode]), default="auto",
              show_default=True, help="auto: hybrid with a semantic embedder, else bm25")
@click.option("--section", multiple=True, metavar="LABEL",
              help="only snippets in sections with this label (repeatable)")
@click.option("--doc", multiple=True, metavar="DOC",
              help="only this document: id, URL or path (repeatable)")
@click.option("--source", multiple=True, type=click.Choice([k.value for k in ContentSource]),
              help="only text extracted from this kind of content (repeatable)")
@click.option("--meta", type=KEY_VALUE, multiple=True,
              help="only documents ingested with this metadata (repeatable)")
@click.option("--group", is_flag=True, help="the best snippet per document")
@click.option("--expand", type=click.Choice([e.value for e in Expansion]),
              help="return the text around each hit")
@click.option("--window", type=click.IntRange(min=0), default=1, show_default=True,
              help="N for --expand: snippets or sections either side")
@json_option
@store_options
def search(query: str | None, queries: Path | None, k: int, mode: str,
           section: tuple[str, ...], doc: tuple[str, ...], source: tuple[str, ...],
           meta: tuple[tuple[str, str], ...], group: bool, expand: str | None, window: int,
           as_json: bool, store: Path | None, space: str, embedder: str | None) -> None:
    """Ranked snippets for a query: BM25, vectors or both."""
    if (query is None) == (queries is None):
        raise click.UsageError("give a QUERY or --queries FILE")
    options: dict[str, Any] = {"mode": mode, "section": section, "document": doc,
                               "source": source, "metadata": meta,
                               "group_by_document": group, "expand": expand,
                               "window": window}

    def shown(found: list[dict[str, Any]]) -> None:
        if as_json:
            for record in found:
                echo_json(record)
            return
        for hit in found:  # printed from the JSON records
            where = one_line(" > ".join(hit["heading_path"]) or "-")
            click.echo(f"{hit['rank']:>2}. {hit['score']:6.3f}  {one_line(shown_title(hit))}  "
                       f"[{where}]  {hit['chunk_id']} [{hit['start']}:{hit['end']}]")
            context = hit.get("context")
            shown_text = context["text"] if context else hit["text"]
            click.echo("    " + " ".join(shown_text.split())[:200 if not context else 2000])
            click.echo(f"    -- {cited_source(hit)}")

    async def work(kb: KnowledgeApi) -> None:
        if queries is not None:
            for item in _queries(queries):
                found = await kb.search(str(item["text"]), k, with_documents=False,
                                        **options)
                echo_json({"id": item.get("id"), "results": serialisation.hits(found)})
            return
        assert query is not None
        shown(as_received(serialisation.hits(await kb.search(query, k, **options))))

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)


def _queries(path: Path) -> list[dict[str, Any]]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"{path.name} line {number} is not JSON: {exc}") from None
        if not isinstance(item, dict) or "text" not in item:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"{path.name} line {number} needs a \"text\"")
        found.append(item)
    return found


@click.command()
@click.option("--embeddings", is_flag=True,
              help="re-embed every snippet with the configured embedder")
@click.option("--no-chunks", is_flag=True,
              help="keep the chunks; with --embeddings or --enrich, only those")
@click.option("--enrich", metavar="KINDS",
              help="redo LLM enrichment (summary, context); cached answers are reused")
@click.option("--token-budget", type=click.IntRange(min=1),
              help="tokens this run may spend on enrichment (or SHEAF_LLM_TOKEN_BUDGET)")
@json_option
@store_options
def reindex(embeddings: bool, no_chunks: bool, enrich: str | None, token_budget: int | None,
            as_json: bool, store: Path | None, space: str, embedder: str | None) -> None:
    """Rebuild chunks (and vectors) from stored text, no fetching."""
    settings = settings_for({Group.STORE, Group.EMBEDDER, Group.LANGUAGE_MODEL}, store=store,
                            space=space, embedder=embedder, token_budget=token_budget)

    async def work(kb: Knowledge) -> None:
        total = len(await kb.documents())
        with progress("reindexing", total, interactive(as_json)) as advance:
            count = await kb.reindex(chunks=not no_chunks, embeddings=embeddings,
                                     enrich=enrich, progress=lambda done, _: advance(1))
        if as_json:
            echo_json({"reindexed": count, "space": space,
                       "chunks": not no_chunks, "embeddings": embeddings,
                       "enrich": enrich})
            return
        click.echo(f"reindexed {count} documents in space {space!r}", err=True)

    with_knowledge(settings, work, hold=True)  # a long run: readers go through it


@click.command()
@json_option
@store_option
def compact(as_json: bool, store: Path | None) -> None:
    """Rewrite the store file with only its live data (every space)."""
    async def work(kb: Knowledge) -> None:
        sizes = await kb.compact()
        if as_json:
            echo_json({"before_bytes": sizes.before, "after_bytes": sizes.after})
            return
        click.echo(f"compacted {sizes.before / 2**20:.1f} MB to {sizes.after / 2**20:.1f} MB")

    with_knowledge(settings_for({Group.STORE}, store=store), work)
