"""Commands over stored documents: list, show, remove, sections, chunks, quote, status and
space. None of them fetches, so none reads the fetch settings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...domain.document.content_source import ContentSource
from ..api import serialisation
from ..api.serialisation import as_received
from ..api.settings import READING, Group
from .citation_text import cited_source, shown_title
from .cli_options import (
    LINE_RANGE,
    json_option,
    settings_for,
    store_option,
    store_options,
)
from .cli_session import echo_json, with_knowledge, with_knowledge_api
from .console_listing import listing_lines

if TYPE_CHECKING:
    from ..api.knowledge import Knowledge
    from ..api.knowledge_api import KnowledgeApi

# Each command prints from the JSON records of `serialisation` (as JSON gives them back:
# lists, plain values), whether its knowledge base is the store opened here or the
# store's holder (ADR-0022).


def _as_reference(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A DOC naming a local file becomes that file's resolved path, the key its source
    is stored under: a relative path then finds the document whatever the directory it
    was ingested from, and a store's holder (its own working directory) finds it too."""
    if "://" not in value and Path(value).is_file():
        return str(Path(value).resolve())
    return value


DOCUMENT = click.argument("document", metavar="DOC", callback=_as_reference)


def register(group: click.Group) -> None:
    for command in (list_documents, show, remove, sections, chunks, quote, status, space):
        group.add_command(command)


@click.command("list")
@click.option("--limit", type=click.IntRange(1, 1000), metavar="N",
              help="list a page of N documents (newest change first); the next page's "
                   "--cursor is printed on stderr")
@click.option("--cursor", metavar="CURSOR", help="the page after the one that printed it")
@json_option
@store_options
def list_documents(limit: int | None, cursor: str | None, as_json: bool,
                   store: Path | None, space: str, embedder: str | None) -> None:
    """Documents of a space (all of them, or a page with --limit / --cursor)."""
    def shown(summaries: list[dict[str, Any]]) -> None:
        for line in listing_lines(summaries, as_json):
            click.echo(line)

    async def work(kb: KnowledgeApi) -> None:
        if limit is None and cursor is None:
            shown(as_received([serialisation.document_summary(d)
                               for d in await kb.documents()]))
            return
        page = await kb.documents_page(limit, cursor)
        shown(as_received([serialisation.document_summary(d) for d in page.documents]))
        if page.next_cursor:
            click.echo(f"next page: --cursor {page.next_cursor}", err=True)

    settings = settings_for(READING, store=store, space=space, embedder=embedder)
    if settings.store_url is None and limit is None and cursor is None:
        # The listing the store left beside it (ADR-0024); a page is read from the store.
        from ..api.listing_snapshot import stored_listing

        if (listing := stored_listing(settings.store, settings.space)) is not None:
            shown(listing)
            return
    with_knowledge_api(settings, work)


@click.command()
@DOCUMENT
@click.option("--markdown", is_flag=True, help="its canonical Markdown")
@click.option("--meta", is_flag=True, help="extracted and caller metadata, as JSON")
@click.option("--diagnostics", is_flag=True, help="what extraction decided, one per line")
@json_option
@store_options
def show(document: str, markdown: bool, meta: bool, diagnostics: bool, as_json: bool,
         store: Path | None, space: str, embedder: str | None) -> None:
    """One document (by id, URL, path or source id)."""
    if markdown + meta + diagnostics + as_json > 1:
        raise click.UsageError("give one of --markdown, --meta, --diagnostics, --json")

    def shown(detail: dict[str, Any]) -> None:
        if diagnostics:
            click.echo("\n".join(detail["diagnostics"]))
        elif as_json:
            echo_json(detail, indent=2)
        else:
            _describe(detail)

    async def work(kb: KnowledgeApi) -> None:
        if markdown:
            sys.stdout.write((await kb.document(document)).markdown + "\n")
            return
        record = await kb.record(document)
        if meta:
            echo_json(serialisation.document_meta(record), indent=2)
        else:
            shown(as_received(serialisation.document_detail(record)))

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)


def _describe(summary: dict[str, Any]) -> None:
    for key in ("id", "title", "content", "content_type", "version", "versions",
                "characters", "updated_at"):
        value = summary[key]
        click.echo(f"{key:<13} {'(untitled)' if value is None and key == 'title' else value}")
    click.echo(f"{'location':<13} {cited_source(summary)}")
    if summary["near_duplicate_of"]:
        click.echo(f"{'near dup of':<13} {summary['near_duplicate_of']} "
                   f"(cosine {summary['near_duplicate_similarity']:.3f})")
    generated = summary["generated_summary"]
    if isinstance(generated, dict):
        from ...domain.enrichment.enrichment import DocumentSummary

        told = DocumentSummary.from_dict(generated)
        click.echo(f"{'summary':<13} [generated by {told.model}] {told.summary}")
        click.echo(f"{'concepts':<13} [generated] {', '.join(told.concepts)}")
    for source in summary["sources"]:
        click.echo(f"{'source':<13} {source['original']}")


@click.command()
@DOCUMENT
@json_option
@store_options
def remove(document: str, as_json: bool, store: Path | None, space: str,
           embedder: str | None) -> None:
    """Remove a document, its versions and the blobs only it used."""
    async def work(kb: KnowledgeApi) -> None:
        removed = await kb.remove(document)
        if as_json:
            echo_json(serialisation.removal(removed))
            return
        click.echo(f"removed {removed.id} ({removed.title or 'untitled'})", err=True)

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)


@click.command()
@DOCUMENT
@json_option
@store_options
def sections(document: str, as_json: bool, store: Path | None, space: str,
             embedder: str | None) -> None:
    """A document's labelled sections."""
    def shown(found: list[dict[str, Any]]) -> None:
        for one in found:
            if as_json:
                echo_json(one)
            else:
                indent = "  " * max(0, one["level"] - 2)
                click.echo(f"{one['label']:<22} {indent}"
                           f"{one['heading'] or '(inferred abstract)'}  "
                           f"[{one['start']}:{one['end']}]")

    async def work(kb: KnowledgeApi) -> None:
        shown(as_received([serialisation.section(s) for s in await kb.sections(document)]))

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)


@click.command()
@DOCUMENT
@click.option("--level", type=click.Choice(("section", "snippet")))
@click.option("--no-retrieval-prefix", is_flag=True,
              help="retrieval text without the [DOC] [PATH] [SECTION] prefix")
@json_option
@store_options
def chunks(document: str, level: str | None, no_retrieval_prefix: bool, as_json: bool,
           store: Path | None, space: str, embedder: str | None) -> None:
    """A document's section and snippet chunks."""
    async def work(kb: Knowledge) -> None:
        counting = await kb.token_counting()
        if not as_json:
            click.echo(f"# sizes in {counting.describe()}", err=True)
        for chunk in await kb.chunks(document, retrieval_prefix=not no_retrieval_prefix):
            if level and chunk.level != level:
                continue
            if as_json:
                echo_json(serialisation.chunk(chunk))
            else:
                click.echo(f"{chunk.id:<34} {chunk.tokens:>5} {counting.unit}  "
                           f"[{chunk.start}:{chunk.end}]  "
                           f"{' > '.join(chunk.heading_path) or '-'}")

    # The sizes are counted as the embedder counts (its tokenizer), which only an opened
    # store's embedder does: not through a holder.
    with_knowledge(settings_for(READING, store=store, space=space, embedder=embedder), work)


@click.command()
@DOCUMENT
@click.option("--text", help="confirm the document says this passage: exit 0 when it is "
                            "verified, 1 with the closest passage and what differs when "
                            "not")
@click.option("--locate", is_flag=True, help="with --text: find where the document says "
                                             "something like it (a paraphrase, damaged "
                                             "text); never verified, differences listed")
@click.option("--sentence", type=click.IntRange(min=1), help="sentence N, from 1")
@click.option("--paragraph", type=click.IntRange(min=1), help="paragraph N, from 1")
@click.option("--lines", type=LINE_RANGE, help="lines A-B, counted from 1")
@click.option("--section", help="a label (methods) or heading text")
@click.option("--all", "find_all", is_flag=True, help="every occurrence of --text")
@click.option("--first", type=click.IntRange(min=1), help="with --section: its first N "
                                                         "sentences")
@click.option("--last", type=click.IntRange(min=1), help="with --section: its last N "
                                                        "sentences")
@json_option
@store_options
def quote(document: str, text: str | None, locate: bool, sentence: int | None,
          paragraph: int | None, lines: tuple[int, int] | None, section: str | None,
          find_all: bool, first: int | None, last: int | None, as_json: bool,
          store: Path | None, space: str, embedder: str | None) -> None:
    """A document's own words, with offsets and citation.

    With --text, the passage is verified only when the document has it exactly or with
    tolerated differences (spacing, line breaks, line-end hyphens, invisible characters,
    ligatures, typographic quotes and dashes, Unicode normalisation, citation markers,
    the first letter's case, a closing stop); any other difference exits 1."""
    given = [name for name, value in (("--text", text), ("--sentence", sentence),
                                      ("--paragraph", paragraph), ("--lines", lines),
                                      ("--section", section)) if value is not None]
    if len(given) != 1:
        raise click.UsageError("give exactly one of --text, --sentence, --paragraph, "
                               "--lines, --section")
    if locate and text is None:
        raise click.UsageError("--locate goes with --text")

    def shown(found: list[dict[str, Any]]) -> None:
        from ...domain.document.document_location import DocumentLocation

        for passage in found:
            if as_json:
                echo_json(passage)
                continue
            where = " > ".join(passage["section_path"]) or "-"
            pages = f", p. {', '.join(map(str, passage['pages']))}" if passage["pages"] \
                else ""
            click.echo(passage["text"])
            cited = DocumentLocation(**passage["location"]).cited or passage["document_id"]
            # On stdout with the passage: `> file` keeps the quote and its source.
            click.echo(f"-- {shown_title(passage)} ({cited}), "
                       f"{where}{pages}, characters {passage['start']}-{passage['end']}, "
                       f"{passage['match']} match")

    async def work(kb: KnowledgeApi) -> int | None:
        if text is not None:
            return await checked(kb, text)
        found = await kb.quote(document, text, sentence=sentence, paragraph=paragraph,
                               lines=lines, section=section, first=first, last=last,
                               find_all=find_all)
        shown(as_received([serialisation.quote(passage) for passage in found]))
        return None

    async def checked(kb: KnowledgeApi, request: str) -> int | None:
        from .exit_codes import EXIT_FAILED
        from .verification_output import echo_closest, echo_failure, echo_passage

        check = as_received(serialisation.quote_check(await kb.check_quote(
            document, request, mode="locate" if locate else "verify", find_all=find_all)))
        if check["quotes"]:
            for passage in check["quotes"]:
                echo_json(passage) if as_json else echo_passage(passage)
            return None
        if as_json:
            echo_json(check)
        said = "not verified in" if check["closest"] else "not in, nor close to anything in,"
        echo_failure("quote_not_found", f"the text is {said} document {check['document_id']}")
        if not as_json:
            echo_closest(check["closest"], check["status"])
        return EXIT_FAILED

    with_knowledge_api(settings_for(READING, store=store, space=space, embedder=embedder),
                       work)


@click.command()
@json_option
@store_option
def status(as_json: bool, store: Path | None) -> None:
    """Store path, schema version, counts per space, last ingest."""
    def shown(found: dict[str, Any]) -> None:
        if as_json:
            echo_json(found, indent=2)
            return
        click.echo(f"store          {found['store']}")
        click.echo(f"schema         {found['schema_version']}")
        click.echo(f"last ingest    {found['last_ingest'] or '-'}")
        for counts in found["spaces"]:
            click.echo(f"space {counts['space']:<9} {counts['documents']} documents, "
                       f"{counts['versions']} versions, {counts['sources']} sources")

    async def work(kb: KnowledgeApi) -> None:
        shown(as_received(serialisation.store_status(await kb.status())))

    with_knowledge_api(settings_for({Group.STORE}, store=store), work, shared=())


@click.command()
@click.argument("name", metavar="SPACE")
@click.option("--enable/--disable", "enabled", default=None,
              help="allow or refuse ingestion")
@click.option("--max-bytes", type=click.IntRange(min=1), help="largest source accepted")
@click.option("--kinds", help="accepted content, comma separated: "
              + ",".join(k.value for k in ContentSource))
@click.option("--enrich", metavar="KINDS",
              help="LLM enrichment for every ingest: summary,context ('' for none)")
@json_option
@store_option
def space(name: str, enabled: bool | None, max_bytes: int | None, kinds: str | None,
          enrich: str | None, as_json: bool, store: Path | None) -> None:
    """Show or set a space's ingestion policy."""
    async def work(kb: KnowledgeApi) -> None:
        allowed = None if kinds is None else [k.strip() for k in kinds.split(",")
                                              if k.strip()]
        policy = await kb.set_policy(ingestion_enabled=enabled, max_bytes=max_bytes,
                                     allowed_kinds=allowed, enrich=enrich)
        shown = serialisation.space_policy(name, policy)
        if as_json:
            echo_json(shown)
        else:
            for key, value in shown.items():
                click.echo(f"{key:<18} {value}")

    changes = (enabled, max_bytes, kinds, enrich)
    with_knowledge_api(settings_for({Group.STORE}, store=store, space=name), work,
                       shared=(), missing="refuse" if changes == (None,) * 4 else "create")
