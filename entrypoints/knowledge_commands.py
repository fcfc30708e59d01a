"""CLI commands over the knowledge store: ingest, list, show, remove, status."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import attrs

from sheaf.application.content_resolver import PREFERENCES
from sheaf.application.ingestion import IngestOptions
from sheaf.application.stage_events import StageEvent
from sheaf.domain.enrichment import DocumentSummary, parse_kinds
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ingestion import DEFAULT_SPACE, IngestResult, IngestStatus
from sheaf.domain.knowledge_records import DocumentRecord
from sheaf.domain.resolved_content import ContentSource
from sheaf.domain.search_request import (
    Expansion,
    SearchFilters,
    SearchMode,
    parse_metadata_filter,
)
from sheaf.domain.token_counting import ESTIMATED_TOKENS
from sheaf.entrypoints.composition import (
    KnowledgeServices,
    build_embedder,
    build_knowledge,
    build_language_model,
    token_budget,
)
from sheaf.entrypoints.configuration import embedder_spec, http_settings, store_path

EXIT_OK, EXIT_FAILED = 0, 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             network_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    ingest = sub.add_parser("ingest", help="fetch or read sources into the knowledge store")
    ingest.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="URLs, files or directories")
    ingest.add_argument("--batch", type=Path, help="a file listing one source per line")
    ingest.add_argument("--recursive", action="store_true", help="walk directories deeply")
    ingest.add_argument("--concurrency", type=int, default=4)
    ingest.add_argument("--force", action="store_true", help="re-extract unchanged sources")
    ingest.add_argument("--resume", action="store_true",
                        help="reuse the staged artifacts of an interrupted ingest instead of "
                             "extracting again")
    ingest.add_argument("--dry-run", action="store_true",
                        help="report what each source would be; store nothing")
    ingest.add_argument("--password", help="password of encrypted PDFs")
    ingest.add_argument("--enrich", metavar="KINDS",
                        help="LLM enrichment of new and changed documents: summary, context "
                             "or summary,context (default: the space's setting)")
    ingest.add_argument("--token-budget", type=int,
                        help="tokens this run may spend on enrichment")
    ingest.add_argument("--prefer", choices=PREFERENCES, default="auto")
    ingest.add_argument("--metadata", action="append", default=[], metavar="KEY=VALUE")
    ingest.add_argument("--source-id", help="your own id for the (single) source")
    ingest.add_argument("--version-id", help="your own id for this version")
    ingest.add_argument("--json", action="store_true", help="one JSON object per source")
    _store_flags(ingest)
    network_flags(ingest)
    ingest.set_defaults(run=_cmd_ingest)

    reconcile = sub.add_parser("reconcile",
                               help="compare a list of sources with the store")
    reconcile.add_argument("--batch", type=Path, required=True,
                           help="a file listing one source per line")
    reconcile.add_argument("--sample", type=int, help="check only N sources, chosen at random")
    reconcile.add_argument("--json", action="store_true")
    reconcile.add_argument("--concurrency", type=int, default=4)
    _store_flags(reconcile)
    network_flags(reconcile)
    reconcile.set_defaults(run=_cmd_reconcile, sources=[], recursive=False)

    listing = sub.add_parser("list", help="documents of a space")
    listing.add_argument("--json", action="store_true")
    _store_flags(listing)
    listing.set_defaults(run=_cmd_list)

    show = sub.add_parser("show", help="one document (by id, URL, path or source id)")
    show.add_argument("document", metavar="DOC")
    what = show.add_mutually_exclusive_group()
    for flag in ("--markdown", "--meta", "--diagnostics", "--json"):
        what.add_argument(flag, action="store_true")
    _store_flags(show)
    show.set_defaults(run=_cmd_show)

    remove = sub.add_parser("remove", help="remove a document, its versions and blobs")
    remove.add_argument("document", metavar="DOC")
    _store_flags(remove)
    remove.set_defaults(run=_cmd_remove)

    sections = sub.add_parser("sections", help="a document's labelled sections")
    sections.add_argument("document", metavar="DOC")
    sections.add_argument("--json", action="store_true")
    _store_flags(sections)
    sections.set_defaults(run=_cmd_sections)

    chunks = sub.add_parser("chunks", help="a document's section and snippet chunks")
    chunks.add_argument("document", metavar="DOC")
    chunks.add_argument("--level", choices=("section", "snippet"))
    chunks.add_argument("--no-retrieval-prefix", action="store_true",
                        help="retrieval text without the [DOC] [PATH] [SECTION] prefix")
    chunks.add_argument("--json", action="store_true")
    _store_flags(chunks)
    chunks.set_defaults(run=_cmd_chunks)

    quote = sub.add_parser("quote", help="a document's own words, with offsets and citation")
    quote.add_argument("document", metavar="DOC")
    how = quote.add_mutually_exclusive_group(required=True)
    how.add_argument("--text", help="find this passage (exact, tolerant, then fuzzy)")
    how.add_argument("--sentence", type=int)
    how.add_argument("--paragraph", type=int)
    how.add_argument("--lines", help="A-B, counted from 1")
    how.add_argument("--section", help="a label (methods) or heading text")
    quote.add_argument("--all", action="store_true", help="every occurrence of --text")
    quote.add_argument("--first", type=int, help="with --section: its first N sentences")
    quote.add_argument("--last", type=int, help="with --section: its last N sentences")
    quote.add_argument("--json", action="store_true")
    _store_flags(quote)
    quote.set_defaults(run=_cmd_quote)

    space = sub.add_parser("space", help="show or set a space's ingestion policy")
    space.add_argument("name", metavar="SPACE")
    switch = space.add_mutually_exclusive_group()
    switch.add_argument("--enable", action="store_true", help="allow ingestion")
    switch.add_argument("--disable", action="store_true", help="refuse ingestion")
    space.add_argument("--max-bytes", type=int, help="largest source accepted")
    space.add_argument("--kinds", help="accepted content, comma separated: "
                       + ",".join(k.value for k in ContentSource))
    space.add_argument("--enrich", metavar="KINDS",
                       help="LLM enrichment for every ingest: summary,context ('' for none)")
    space.add_argument("--json", action="store_true")
    space.add_argument("--store", help="the DuckDB file")
    space.set_defaults(run=_cmd_space)

    search = sub.add_parser("search", help="ranked snippets for a query: BM25, vectors or both")
    search.add_argument("query", nargs="?")
    search.add_argument("--queries", type=Path,
                        help='a JSON-lines file of {"id", "text"}: one result line each')
    search.add_argument("--k", type=int, default=10)
    search.add_argument("--mode", choices=[m.value for m in SearchMode], default="auto",
                        help="auto (default): hybrid with a semantic embedder, else bm25")
    search.add_argument("--section", action="append", default=[], metavar="LABEL",
                        help="only snippets in sections with this label (repeatable)")
    search.add_argument("--doc", action="append", default=[], metavar="DOC",
                        help="only this document: id, URL or path (repeatable)")
    search.add_argument("--source", action="append", default=[],
                        choices=[k.value for k in ContentSource],
                        help="only text extracted from this kind of content (repeatable)")
    search.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                        help="only documents ingested with this metadata (repeatable)")
    search.add_argument("--group", action="store_true", help="the best snippet per document")
    search.add_argument("--expand", choices=[e.value for e in Expansion],
                        help="return the text around each hit")
    search.add_argument("--window", type=int, default=1,
                        help="N for --expand: snippets or sections either side (default 1)")
    search.add_argument("--json", action="store_true")
    _store_flags(search)
    search.set_defaults(run=_cmd_search)

    reindex = sub.add_parser("reindex", help="rebuild chunks (and vectors) from stored text, "
                                             "no fetching")
    reindex.add_argument("--embeddings", action="store_true",
                         help="re-embed every snippet with the configured embedder")
    reindex.add_argument("--no-chunks", action="store_true",
                         help="keep the chunks; with --embeddings or --enrich, only those")
    reindex.add_argument("--enrich", metavar="KINDS",
                         help="redo LLM enrichment (summary, context); cached answers are "
                              "reused")
    reindex.add_argument("--token-budget", type=int,
                         help="tokens this run may spend on enrichment")
    _store_flags(reindex)
    reindex.set_defaults(run=_cmd_reindex)

    status = sub.add_parser("status", help="store path, schema, counts per space")
    status.add_argument("--json", action="store_true")
    _store_flags(status)
    status.set_defaults(run=_cmd_status)


def _store_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", help="the DuckDB file (default: SHEAF_STORE or the user "
                                        "data directory)")
    parser.add_argument("--space", default=DEFAULT_SPACE)
    parser.add_argument("--embedder", help="hashing (default), local, onnx:DIR, openai:MODEL, "
                                           "ollama:MODEL or none (or SHEAF_EMBEDDER)")


def _with_services(args: argparse.Namespace,
                   work: Callable[[KnowledgeServices], Awaitable[int]],
                   listener: Callable[[StageEvent], None] | None = None) -> int:
    settings = http_settings(allow_private=getattr(args, "allow_private", False),
                             max_bytes=getattr(args, "max_bytes", None),
                             timeout=getattr(args, "timeout", None))

    async def run() -> int:
        embedder = build_embedder(embedder_spec(getattr(args, "embedder", None)))
        services = build_knowledge(settings, store_path(args.store), listener, embedder,
                                   language_model=build_language_model(),
                                   budget=token_budget(getattr(args, "token_budget", None)))
        try:
            return await work(services)
        finally:
            await services.aclose()

    return anyio.run(run)


async def _for_each(sources: list[str], concurrency: int,
                    work: Callable[[str], Awaitable[None]]) -> None:
    """Run `work` on every source, at most `concurrency` at a time."""
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def limited(source: str) -> None:
        async with limiter:
            await work(source)

    async with anyio.create_task_group() as group:
        for source in sources:
            group.start_soon(limited, source)


def _sources(args: argparse.Namespace) -> list[str]:
    found = list(args.sources)
    if args.batch:
        try:
            lines = args.batch.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"cannot read {args.batch}: {exc}"
                             ) from None
        found += [line.split("#", 1)[0].strip() for line in lines]
    return [s for s in found if s]


def _cmd_ingest(args: argparse.Namespace) -> int:
    metadata = {}
    for item in args.metadata:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"sheaf: error: --metadata wants KEY=VALUE, not {item!r}", file=sys.stderr)
            return 2
        metadata[key] = value
    sources = _sources(args)
    if not sources:
        print("sheaf: error: nothing to ingest (give sources or --batch)", file=sys.stderr)
        return 2
    options = IngestOptions(space=args.space, metadata=metadata, force=args.force,
                            dry_run=args.dry_run, resume=args.resume,
                            password=args.password, prefer=args.prefer,
                            source_id=args.source_id, version_id=args.version_id,
                            enrich=parse_kinds(args.enrich) if args.enrich is not None
                            else None)
    interactive = sys.stderr.isatty() and not args.json

    async def work(services: KnowledgeServices) -> int:
        listing = await services.ingestion.expand_listing(sources, args.recursive)
        expanded = list(listing.files)
        results: list[IngestResult] = []
        for skipped in listing.skipped:  # every file of a directory is accounted for
            if args.json:
                print(json.dumps(skipped.as_dict(), ensure_ascii=False), flush=True)
            else:
                print(f"skipped   {skipped.path}  ({skipped.reason})", file=sys.stderr)

        async def one(source: str) -> None:
            result = await services.ingestion.ingest(source, options)
            results.append(result)
            if args.json:
                print(json.dumps(result.as_dict(), ensure_ascii=False), flush=True)
            else:
                line = f"[{len(results)}/{len(expanded)}] {result.status.value:<9} {source}"
                if result.error_kind:
                    line += f"  ({result.message})"
                if result.near_duplicate_of:
                    line += f"  (near duplicate of {result.near_duplicate_of})"
                if result.enrichment and result.enrichment != "enriched":
                    line += f"  (enrichment {result.enrichment}: see sheaf show --diagnostics)"
                end = "\n" if result.error_kind or result.near_duplicate_of or not interactive \
                    or result.enrichment not in (None, "enriched") else "\r"
                print(line.ljust(100)[:160], end=end, file=sys.stderr, flush=True)

        await _for_each(expanded, args.concurrency, one)
        counts = Counter(r.status.value for r in results)
        summary = ", ".join(f"{counts.get(s.value, 0)} {s.value}" for s in IngestStatus)
        summary += f", {len(listing.skipped)} skipped"
        print(("\n" if interactive else "") + f"summary: {summary}", file=sys.stderr)
        for skipped in listing.skipped:
            print(f"  skipped {skipped.path}: {skipped.reason}", file=sys.stderr)
        for failed in (r for r in results if r.status is IngestStatus.FAILED):
            print(f"  failed {failed.source}: {failed.error_kind}: {failed.message}",
                  file=sys.stderr)
        return EXIT_FAILED if counts.get("failed") else EXIT_OK

    return _with_services(args, work)


# What a dry run's outcome means for a source that should already be in the store.
RECONCILED = {IngestStatus.NEW: "missing", IngestStatus.CHANGED: "stale",
              IngestStatus.UNCHANGED: "present", IngestStatus.DUPLICATE: "present",
              IngestStatus.FAILED: "unreachable"}


def _cmd_reconcile(args: argparse.Namespace) -> int:
    sources = _sources(args)
    if args.sample is not None and args.sample < len(sources):
        sources = random.sample(sources, args.sample)
    options = IngestOptions(space=args.space, dry_run=True)

    async def work(services: KnowledgeServices) -> int:
        verdicts: list[tuple[str, IngestResult]] = []

        async def one(source: str) -> None:
            result = await services.ingestion.ingest(source, options)
            verdict = RECONCILED[result.status]
            verdicts.append((verdict, result))
            if args.json:
                print(json.dumps({"source": source, "state": verdict,
                                  **({"error": result.message} if result.message else {})}))
            else:
                print(f"{verdict:<11} {source}")

        await _for_each(await services.ingestion.expand(sources), args.concurrency, one)
        counts = Counter(v for v, _ in verdicts)
        print("summary: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in
                                      ("present", "stale", "missing", "unreachable")),
              file=sys.stderr)
        return EXIT_OK if counts.get("present", 0) == len(verdicts) else EXIT_FAILED

    return _with_services(args, work)


def _summary(document: DocumentRecord) -> dict[str, Any]:
    current = document.current
    return {
        "id": document.id, "title": document.title, "space": document.space,
        "source": current.content_source, "content_type": current.content_type,
        "version": current.id, "versions": len(document.versions),
        "characters": current.characters,
        "sources": [{"kind": s.kind.value, "key": s.key, "original": s.original,
                     "final_url": s.final_url} for s in document.sources],
        "location": document.location.as_dict(),
        "source_id": document.caller_source_id,
        "near_duplicate_of": current.near_duplicate_of,
        "near_duplicate_similarity": current.near_duplicate_similarity,
        "generated_summary": current.enrichment,
        "updated_at": document.updated_at.isoformat() if document.updated_at else None,
    }


def _cmd_list(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        for document in await services.catalogue.list(args.space):
            if args.json:
                print(json.dumps(_summary(document), ensure_ascii=False))
            else:
                first = document.sources[0].original if document.sources else ""
                print(f"{document.id}  {document.current.content_source:<4}  "
                      f"{(document.title or '(untitled)')[:60]:<60}  {first}")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_show(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        document = await services.catalogue.get(args.space, args.document)
        current = document.current
        if args.markdown:
            sys.stdout.write(await services.catalogue.markdown(document) + "\n")
        elif args.meta:
            print(json.dumps({"metadata": current.metadata,
                              "caller_metadata": current.caller_metadata,
                              "caller_version_id": current.caller_version_id},
                             ensure_ascii=False, indent=2))
        elif args.diagnostics:
            print("\n".join(current.diagnostics))
        elif args.json:
            payload = _summary(document) | {
                "metadata": current.metadata, "caller_metadata": current.caller_metadata,
                "diagnostics": list(current.diagnostics),
                "history": [{"id": v.id, "created_at": v.created_at.isoformat(),
                             "superseded_at": v.superseded_at.isoformat()
                             if v.superseded_at else None, "sha256": v.fetched_sha}
                            for v in document.versions]}
            print(json.dumps(payload, ensure_ascii=False, indent=2))
        else:
            summary = _summary(document)
            for key in ("id", "title", "source", "content_type", "version", "versions",
                        "characters", "updated_at"):
                print(f"{key:<13} {summary[key]}")
            if current.near_duplicate_of:
                print(f"{'near dup of':<13} {current.near_duplicate_of} "
                      f"(cosine {current.near_duplicate_similarity:.3f})")
            if current.enrichment:
                generated = DocumentSummary.from_dict(current.enrichment)
                print(f"{'summary':<13} [generated by {generated.model}] {generated.summary}")
                print(f"{'concepts':<13} [generated] {', '.join(generated.concepts)}")
            for source in document.sources:
                print(f"{'source':<13} {source.original}")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_remove(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        removed = await services.catalogue.remove(args.space, args.document)
        print(f"removed {removed.id} ({removed.title or 'untitled'})", file=sys.stderr)
        return EXIT_OK

    return _with_services(args, work)


def _cmd_status(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        status = await services.catalogue.status()
        payload = {"store": status.location, "schema_version": status.schema_version,
                   "last_ingest": status.last_ingest.isoformat() if status.last_ingest else None,
                   "spaces": [{"space": s.space, "documents": s.documents,
                               "versions": s.versions, "sources": s.sources}
                              for s in status.spaces]}
        if args.json:
            print(json.dumps(payload, indent=2))
        else:
            print(f"store          {payload['store']}")
            print(f"schema         {payload['schema_version']}")
            print(f"last ingest    {payload['last_ingest'] or '-'}")
            for space in status.spaces:
                print(f"space {space.space:<9} {space.documents} documents, "
                      f"{space.versions} versions, {space.sources} sources")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_sections(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        loaded = await services.structure.load(args.space, args.document)
        for section in loaded.sections:
            entry = {"index": section.index, "label": section.label, "level": section.level,
                     "heading": section.heading, "path": list(section.path),
                     "start": section.start, "end": section.end,
                     "inferred": section.inferred}
            if args.json:
                print(json.dumps(entry, ensure_ascii=False))
            else:
                indent = "  " * max(0, section.level - 2)
                print(f"{section.label:<22} {indent}{section.heading or '(inferred abstract)'}"
                      f"  [{section.start}:{section.end}]")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_quote(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        quotes = services.quotes
        if args.text is not None:
            found = await quotes.by_text(args.space, args.document, args.text,
                                         find_all=args.all)
        elif args.section is not None:
            found = [await quotes.section(args.space, args.document, args.section,
                                          args.first, args.last)]
        else:
            unit, value = next((u, v) for u, v in (
                ("sentence", args.sentence), ("paragraph", args.paragraph),
                ("line", args.lines)) if v is not None)
            first, _, last = str(value).partition("-")
            try:
                span = (int(first), int(last) if last else None)
            except ValueError:
                print(f"sheaf: error: --lines wants A-B, not {value!r}", file=sys.stderr)
                return 2
            found = [await quotes.by_position(args.space, args.document, unit, *span)]
        for quote in found:
            if args.json:
                print(json.dumps(quote.as_dict(), ensure_ascii=False))
            else:
                where = " > ".join(quote.section_path) or "-"
                pages = f", p. {', '.join(map(str, quote.pages))}" if quote.pages else ""
                print(quote.text)
                source = quote.location.cited or quote.document_id
                print(f"-- {quote.title or quote.document_id} ({source}"
                      f"), {where}{pages}, characters {quote.start}-{quote.end}, "
                      f"{quote.match} match", file=sys.stderr)
        return EXIT_OK

    return _with_services(args, work)


def _cmd_chunks(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        loaded = await services.structure.load(args.space, args.document)
        stored = await services.store.chunks(args.space, loaded.document.current.id)
        counting = (await services.embedder.token_counting() if services.embedder
                    else ESTIMATED_TOKENS)
        chunks = (stored if stored and not args.no_retrieval_prefix
                  else loaded.chunks(retrieval_prefix=not args.no_retrieval_prefix,
                                     count=counting.count, input_limit=counting.limit))
        if not args.json:
            print(f"# sizes in {counting.describe()}", file=sys.stderr)
        for chunk in chunks:
            if args.level and chunk.level != args.level:
                continue
            if args.json:
                print(json.dumps(attrs.asdict(chunk), ensure_ascii=False))
            else:
                print(f"{chunk.id:<34} {chunk.tokens:>5} {counting.unit}  "
                      f"[{chunk.start}:{chunk.end}]  "
                      f"{' > '.join(chunk.heading_path) or '-'}")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_reindex(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        count = await services.reindexing.reindex(
            args.space, chunks=not args.no_chunks, embeddings=args.embeddings,
            enrich=parse_kinds(args.enrich or ""))
        print(f"reindexed {count} documents in space {args.space!r}", file=sys.stderr)
        return EXIT_OK

    return _with_services(args, work)


def _cmd_space(args: argparse.Namespace) -> int:
    async def work(services: KnowledgeServices) -> int:
        policy = await services.store.policy(args.name)
        changes: dict[str, Any] = {}
        if args.enable or args.disable:
            changes["ingestion_enabled"] = bool(args.enable)
        if args.max_bytes is not None:
            changes["max_bytes"] = args.max_bytes
        if args.enrich is not None:
            changes["enrich"] = frozenset(k.value for k in parse_kinds(args.enrich))
        if args.kinds is not None:
            try:
                changes["allowed_kinds"] = frozenset(
                    ContentSource(k.strip()) for k in args.kinds.split(",") if k.strip())
            except ValueError:
                kinds = ", ".join(k.value for k in ContentSource)
                print(f"sheaf: error: --kinds takes {kinds}, not {args.kinds!r}",
                      file=sys.stderr)
                return 2
        if changes:
            policy = attrs.evolve(policy, **changes)
            await services.store.set_policy(args.name, policy)
        shown = {"space": args.name, "ingestion_enabled": policy.ingestion_enabled,
                 "max_bytes": policy.max_bytes,
                 "allowed_kinds": sorted(k.value for k in policy.allowed_kinds),
                 "enrich": sorted(policy.enrich)}
        if args.json:
            print(json.dumps(shown))
        else:
            for key, value in shown.items():
                print(f"{key:<18} {value}")
        return EXIT_OK

    return _with_services(args, work)


def _cmd_search(args: argparse.Namespace) -> int:
    if (args.query is None) == (args.queries is None):
        print("sheaf: error: give a QUERY or --queries FILE", file=sys.stderr)
        return 2

    async def work(services: KnowledgeServices) -> int:
        documents = await services.catalogue.document_ids(args.space, args.doc)
        filters = SearchFilters(documents, frozenset(args.section),
                                frozenset(args.source), parse_metadata_filter(args.meta))
        options: dict[str, Any] = {
            "mode": SearchMode(args.mode), "filters": filters, "group_by_document": args.group,
            "expand": Expansion(args.expand) if args.expand else None,
            "window": args.window}
        if args.queries is not None:
            for line in args.queries.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                hits = await services.search.search(args.space, str(item["text"]), args.k,
                                                    with_documents=False, **options)
                print(json.dumps({"id": item.get("id"),
                                  "results": [h.as_dict() for h in hits]}, ensure_ascii=False))
            return EXIT_OK
        hits = await services.search.search(args.space, args.query, args.k, **options)
        for rank, hit in enumerate(hits, start=1):
            if args.json:
                print(json.dumps({"rank": rank, **hit.as_dict()}, ensure_ascii=False))
            else:
                where = " > ".join(hit.chunk.heading_path) or "-"
                print(f"{rank:>2}. {hit.score:6.3f}  {hit.title or hit.document_id}  [{where}]"
                      f"  {hit.chunk.id} [{hit.chunk.start}:{hit.chunk.end}]")
                shown = hit.context.text if hit.context else hit.chunk.text
                print("    " + " ".join(shown.split())[:200 if not hit.context else 2000])
        return EXIT_OK

    return _with_services(args, work)
