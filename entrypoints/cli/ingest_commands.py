"""`sheaf ingest` and `sheaf reconcile`: sources into the store, and a list of sources
compared with it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...domain.errors import ErrorKind, SheafError
from ...domain.queue.ingest_jobs import IngestJob
from ...domain.rendering.render_need import RENDER_MODES
from ...domain.store.ingestion import IngestStatus
from ..api import serialisation
from ..api.serialisation import as_received
from ..api.settings import ALL_GROUPS, Group
from . import queue_commands
from .cli_options import (
    KEY_VALUE,
    PREFERENCES,
    json_option,
    network_options,
    settings_for,
    store_options,
)
from .cli_session import (
    echo_json,
    interactive,
    progress,
    with_knowledge_api,
)
from .crawl_commands import CRAWL_OPTIONS, crawl_options, run_crawl
from .failure_text import failure_text
from .queue_commands import queue_url_option
from .terminal_text import one_line

if TYPE_CHECKING:
    from ...domain.routing.directory_listing import SkippedFile
    from ..api.knowledge_api import KnowledgeApi

# What a dry run's outcome means for a source that should already be in the store.
RECONCILED = {IngestStatus.NEW: "missing", IngestStatus.CHANGED: "stale",
              IngestStatus.UNCHANGED: "present", IngestStatus.DUPLICATE: "present",
              IngestStatus.FAILED: "unreachable"}
BATCH_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def register(group: click.Group) -> None:
    group.add_command(ingest)
    group.add_command(reconcile)


def _sources(given: tuple[str, ...], batch: Path | None) -> list[str]:
    found = list(given)
    if batch is not None:
        try:
            lines = batch.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"cannot read {batch}: {exc}"
                             ) from None
        found += [line.split("#", 1)[0].strip() for line in lines]
    return [s for s in found if s]


def _fetch_flags(network: dict[str, Any]) -> dict[str, Any]:
    return {"allow_private": network.pop("allow_private") or None,
            "max_bytes": network.pop("max_bytes"), "timeout": network.pop("timeout")}


@click.command()
@click.argument("sources", nargs=-1, metavar="SOURCE...")
@click.option("--batch", type=BATCH_FILE, help="a file listing one source per line")
@click.option("--recursive", is_flag=True, help="walk directories deeply")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--force", is_flag=True, help="re-extract unchanged sources")
@click.option("--resume", is_flag=True, help="reuse the staged artifacts of an interrupted "
                                             "ingest instead of extracting again")
@click.option("--dry-run", is_flag=True, help="report what each source would be; store "
                                              "nothing")
@click.option("--password", help="password of encrypted PDFs")
@click.option("--enrich", metavar="KINDS", help="LLM enrichment of new and changed "
              "documents: summary, context or summary,context (default: the space's)")
@click.option("--token-budget", type=click.IntRange(min=1),
              help="tokens this run may spend on enrichment (or SHEAF_LLM_TOKEN_BUDGET)")
@click.option("--prefer", type=click.Choice(PREFERENCES), default="auto", show_default=True)
@click.option("--render", type=click.Choice(RENDER_MODES), default="auto", show_default=True,
              help="render web pages in a headless Chromium: auto when the served markup "
                   "is thin and built by script")
@click.option("--metadata", type=KEY_VALUE, multiple=True, help="a label stored with "
              "each document (repeatable)")
@click.option("--source-id", help="your own id for the (single) source")
@click.option("--version-id", help="your own id for this version")
@click.option("--queue", "queued", is_flag=True, help="enqueue one job per source for "
              "`sheaf worker` processes instead of ingesting here; prints the batch id")
@click.option("--wait", is_flag=True, help="with --queue: follow the batch to its end and "
                                           "print its summary")
@click.option("--stages", is_flag=True, help="print each stage of each source (with --json "
              "as JSON lines) and at the end where the time went")
@crawl_options
@queue_url_option
@json_option
@store_options
@network_options
def ingest(sources: tuple[str, ...], batch: Path | None, recursive: bool, concurrency: int,
           metadata: tuple[tuple[str, str], ...], as_json: bool, store: Path | None,
           space: str, embedder: str | None, token_budget: int | None, queued: bool,
           wait: bool, queue_url: str | None, stages: bool, **options: Any) -> None:
    """Fetch or read sources (URLs, files, directories) into the knowledge store, or
    crawl a site with --crawl URL."""
    fetch_flags = _fetch_flags(options)
    crawl = {name: options.pop(name) for name in CRAWL_OPTIONS}
    crawl_start = options.pop("crawl_start")
    found = _sources(sources, batch)
    if crawl_start is not None:
        if found or queued or wait or queue_url:
            raise click.UsageError("--crawl takes no other sources and runs here, not "
                                   "through --queue")
        if options["source_id"] or options["version_id"] or options["resume"]:
            raise click.UsageError("--source-id, --version-id and --resume name one "
                                   "source: they do not go with --crawl")
        if options["dry_run"]:
            raise click.UsageError("--dry-run does not go with --crawl")
        for name in ("source_id", "version_id", "resume", "dry_run"):
            options.pop(name)
        settings = settings_for(ALL_GROUPS, store=store, space=space, embedder=embedder,
                                token_budget=token_budget, **fetch_flags)
        run_crawl(settings, crawl_start, crawl, concurrency=concurrency,
                  metadata=dict(metadata), options=options, as_json=as_json,
                  shared=HOLDER_SETTINGS)
        return
    if not found:
        raise click.UsageError("nothing to ingest (give sources or --batch)")
    if queued or wait or queue_url:
        _enqueue(found, recursive, metadata, as_json, store, space, wait, queue_url,
                 fetch_flags, options, queued)
        return
    settings = settings_for(ALL_GROUPS, store=store, space=space, embedder=embedder,
                            token_budget=token_budget, **fetch_flags)
    live = interactive(as_json)

    async def shown(skipped: tuple[SkippedFile, ...], total: int,
                    results: AsyncIterator[dict[str, Any]]) -> int:
        """The run's output: the skipped files, then each result (a JSON record) as it
        comes."""
        for one in skipped:  # every file of a directory is accounted for
            if as_json:
                echo_json(one.as_dict())
            else:
                click.echo(f"skipped   {one_line(one.path)}  ({one.reason})", err=True)
        done: list[dict[str, Any]] = []
        with progress("ingesting", total, live) as shown_progress:
            async for result in results:
                done.append(result)
                shown_progress.advance(1)
                if (line := _report(result, len(done), total, as_json, live)):
                    shown_progress.note(line)
        counts = Counter(r["status"] for r in done)
        summary = ", ".join(f"{counts.get(s.value, 0)} {s.value}" for s in IngestStatus)
        click.echo(f"summary: {summary}, {len(skipped)} skipped", err=True)
        if not total:  # every source skipped (a tree of folders without --recursive)
            click.echo("nothing to ingest: no file sheaf reads among the sources", err=True)
            return 1
        for one in skipped:
            click.echo(f"  skipped {one_line(one.path)}: {one.reason}", err=True)
        for failed in (r for r in done if r["status"] == IngestStatus.FAILED.value):
            click.echo(f"  failed {one_line(failed['source'])}: "
                       f"{failure_text(failed.get('error_kind'), failed.get('message'))}",
                       err=True)
        return 1 if counts.get("failed") else 0

    async def work(kb: KnowledgeApi) -> int:
        listing = await kb.listing(found, recursive=recursive)

        async def results() -> AsyncIterator[dict[str, Any]]:
            async for event in kb.ingest_many(listing, concurrency=concurrency,
                                              metadata=dict(metadata), **options):
                yield as_received(serialisation.ingest_result(event.result))

        if not stages:
            return await shown(listing.skipped, len(listing.files), results())
        from .stage_profile import stage_profile

        with stage_profile(echo_json if as_json else None) as profile:
            code = await shown(listing.skipped, len(listing.files), results())
        if as_json:
            echo_json(profile.summary())
        else:
            click.echo(profile.text(), err=True)
        return code

    # A dry run on a store that is not there yet reports against an empty one in memory:
    # it writes no file.
    with_knowledge_api(settings, work, shared=HOLDER_SETTINGS, hold=True,
                       missing="in_memory" if options["dry_run"] else "create")


def _enqueue(found: list[str], recursive: bool, metadata: tuple[tuple[str, str], ...],
             as_json: bool, store: Path | None, space: str, wait: bool,
             queue_url: str | None, fetch_flags: dict[str, Any], options: dict[str, Any],
             queued: bool) -> None:
    if not queued:
        raise click.UsageError("--wait and --queue-url go with --queue")
    if options.get("dry_run"):
        raise click.UsageError("--dry-run cannot be queued: run it here, without --queue")
    if options.pop("render", "auto") != "auto":
        raise click.UsageError("--render is not carried by queued jobs: workers render "
                               "in auto mode where Chromium is installed")
    if any(value for value in fetch_flags.values()):
        raise click.UsageError("--allow-private, --max-bytes and --timeout are the "
                               "workers' settings: give them to `sheaf worker`")
    settings = settings_for({Group.STORE, Group.QUEUE}, store=store, space=space,
                            queue=queue_url)
    template = IngestJob(batch="", source="", space=settings.space,
                         metadata=dict(metadata), force=options["force"],
                         resume=options["resume"], password=options["password"],
                         prefer=options["prefer"], enrich=options["enrich"],
                         source_id=options["source_id"], version_id=options["version_id"])
    queue_commands.enqueue(settings, found, recursive=recursive, template=template,
                           as_json=as_json, wait=wait)


HOLDER_SETTINGS = ("embedder", "blobs", "max_bytes", "timeout", "allow_private",
                   "language_model", "token_budget")
"""What an ingest depends on besides its sources: it goes through a holder only when
that holder has the same."""
RECONCILE_SETTINGS = ("embedder", "blobs", "max_bytes", "timeout", "allow_private")
"""What a reconcile's dry run depends on (it enriches nothing)."""


def _report(result: dict[str, Any], done: int, total: int, as_json: bool,
            live: bool) -> str | None:
    """The line to print for one result (JSON goes to stdout here); None for none."""
    if as_json:
        echo_json(result)
        return None
    notes = []
    if result.get("error_kind"):
        notes.append(result.get("message") or result["error_kind"])
    if result.get("near_duplicate_of"):
        notes.append(f"near duplicate of {result['near_duplicate_of']}")
    if result.get("low_confidence"):
        notes.append(f"low extraction confidence {result['extraction_confidence']:.2f}: "
                     f"{result['low_confidence']}")
    enrichment = result.get("enrichment")
    if enrichment and enrichment != "enriched":
        notes.append(f"enrichment {enrichment}: see sheaf show --diagnostics")
    # Under a progress bar only what needs reading is printed; in a log, every source.
    if notes or not live:
        line = f"[{done}/{total}] {result['status']:<9} {one_line(result['source'])}"
        return line + "".join(f"  ({note})" for note in notes)
    return None


@click.command()
@click.option("--batch", type=BATCH_FILE, required=True,
              help="a file listing one source per line")
@click.option("--sample", type=click.IntRange(min=1), help="check only N sources, chosen "
                                                          "at random")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True)
@json_option
@store_options
@network_options
def reconcile(batch: Path, sample: int | None, concurrency: int, as_json: bool,
              store: Path | None, space: str, embedder: str | None, **network: Any) -> None:
    """Compare a list of sources with the store: present, stale, missing or unreachable."""
    settings = settings_for({Group.STORE, Group.EMBEDDER, Group.FETCH}, store=store,
                            space=space, embedder=embedder, **_fetch_flags(network))
    sources = _sources((), batch)
    if sample is not None and sample < len(sources):
        sources = random.sample(sources, sample)

    async def work(kb: KnowledgeApi) -> int:
        verdicts: Counter[str] = Counter()
        async for event in kb.ingest_many(sources, concurrency=concurrency, dry_run=True):
            verdict = RECONCILED[event.result.status]
            verdicts[verdict] += 1
            if as_json:
                echo_json({"source": event.result.source, "state": verdict,
                           **({"error": event.result.message} if event.result.message
                              else {})})
            else:
                click.echo(f"{verdict:<11} {one_line(event.result.source)}")
        click.echo("summary: " + ", ".join(f"{verdicts.get(v, 0)} {v}" for v in
                                           ("present", "stale", "missing", "unreachable")),
                   err=True)
        return 0 if verdicts.get("present", 0) == sum(verdicts.values()) else 1

    with_knowledge_api(settings, work, shared=RECONCILE_SETTINGS)
