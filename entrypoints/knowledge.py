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
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import attrs

from sheaf.application.ingestion import IngestOptions
from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.language_model import LanguageModel
from sheaf.application.quotes import Quote
from sheaf.application.search import SearchHit
from sheaf.application.worker_pool import WorkerPool
from sheaf.domain.context_block import CitedPassage, context_block
from sheaf.domain.enrichment import parse_kinds
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ingestion import DEFAULT_SPACE, IngestResult
from sheaf.domain.knowledge_records import DocumentRecord, StoreStatus
from sheaf.domain.search_request import Expansion, SearchFilters, SearchMode
from sheaf.domain.sections import Section
from sheaf.entrypoints.agent_tools import check_arguments, tool_definitions
from sheaf.entrypoints.composition import (
    KnowledgeServices,
    build_embedder,
    build_knowledge,
    build_language_model,
)
from sheaf.entrypoints.composition import token_budget as budget_from_environment
from sheaf.entrypoints.configuration import embedder_spec, http_settings, store_path


@attrs.frozen
class IngestProgress:
    """One source of an `ingest_many` batch finished: `done` of `total` so far."""

    done: int
    total: int
    result: IngestResult


@attrs.frozen
class StoredDocument:
    """A document's record with its canonical Markdown."""

    record: DocumentRecord
    markdown: str

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def title(self) -> str | None:
        return self.record.title


class Knowledge:
    """A knowledge base: one space of one store. Open it with `Knowledge.open`."""

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
                   token_budget: int | None = None) -> AsyncIterator[Knowledge]:
        """Open `store` (a DuckDB file; default SHEAF_STORE or the user data directory)
        on `space`. `embedder` is a spec (`hashing`, `local`, `openai:MODEL`, ...; default
        SHEAF_EMBEDDER) or an `Embedder`; `workers` bounds the CPU worker threads.
        `language_model` (default: from SHEAF_LLM_*) enables enrichment, spending at most
        `token_budget` tokens (default SHEAF_LLM_TOKEN_BUDGET) while it is open."""
        chosen = embedder if embedder is not None and not isinstance(embedder, str) \
            else build_embedder(embedder_spec(embedder))
        services = build_knowledge(
            http_settings(allow_private=allow_private_network, max_bytes=max_bytes,
                          timeout=timeout),
            store_path(str(store) if store is not None else None), embedder=chosen,
            pool=WorkerPool(workers),
            language_model=language_model or build_language_model(),
            budget=budget_from_environment(token_budget))
        try:
            async with anyio.create_task_group() as tasks:
                yield cls(services, space, tasks)
                tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await services.aclose()

    # -- ingestion ---------------------------------------------------------------------
    async def ingest(self, source: str, *, metadata: dict[str, str] | None = None,
                     source_id: str | None = None, force: bool = False,
                     password: str | None = None, enrich: str | None = None
                     ) -> IngestResult:
        """Ingest a URL or a file. Failures come back as a `failed` result with the error
        kind, never as an exception. `enrich` ("summary", "context" or both, comma
        separated) overrides the space's enrichment setting."""
        return await self._services.ingestion.ingest(source, IngestOptions(
            space=self.space, metadata=dict(metadata or {}), source_id=source_id,
            force=force, password=password,
            enrich=parse_kinds(enrich) if enrich is not None else None))

    async def ingest_many(self, sources: Sequence[str], *, concurrency: int = 4,
                          metadata: dict[str, str] | None = None
                          ) -> AsyncIterator[IngestProgress]:
        """Ingest sources (directories expand to their files), `concurrency` at a time,
        yielding a progress event as each finishes. Leaving the loop early cancels the
        rest."""
        expanded = await self._services.ingestion.expand(list(sources))
        send, receive = anyio.create_memory_object_stream[IngestResult](len(expanded) or 1)
        limiter = anyio.CapacityLimiter(max(1, concurrency))
        batch = anyio.CancelScope()

        async def one(source: str) -> None:
            async with limiter:
                result = await self.ingest(source, metadata=metadata)
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await send.send(result)  # the consumer may have left

        async def run_batch() -> None:
            with batch:
                async with send, anyio.create_task_group() as group:
                    for source in expanded:
                        group.start_soon(one, source)

        self._tasks.start_soon(run_batch)
        done = 0
        try:
            async with receive:
                async for result in receive:
                    done += 1
                    yield IngestProgress(done, len(expanded), result)
        finally:
            batch.cancel()

    async def remove(self, document: str) -> DocumentRecord:
        """Remove a document (by id, URL, path or source id) and what only it used."""
        return await self._services.catalogue.remove(self.space, document)

    # -- reading -----------------------------------------------------------------------
    async def documents(self) -> list[DocumentRecord]:
        return await self._services.catalogue.list(self.space)

    async def document(self, reference: str) -> StoredDocument:
        """A document by id, URL, path or source id, with its Markdown."""
        record = await self._services.catalogue.get(self.space, reference)
        return StoredDocument(record, await self._services.catalogue.markdown(record))

    async def status(self) -> StoreStatus:
        """The store's location, schema version and counts per space."""
        return await self._services.catalogue.status()

    async def sections(self, document: str) -> tuple[Section, ...]:
        return (await self._services.structure.load(self.space, document)).sections

    async def search(self, query: str, k: int = 10, *, mode: str | SearchMode = "auto",
                     section: str | Sequence[str] | None = None,
                     document: str | Sequence[str] | None = None,
                     source: str | Sequence[str] | None = None,
                     metadata: dict[str, str] | None = None, group_by_document: bool = False,
                     expand: str | Expansion | None = None, window: int = 1
                     ) -> list[SearchHit]:
        """Ranked snippets with citations; see `sheaf search` for the options."""
        documents = await self._services.catalogue.document_ids(self.space, _many(document))
        filters = SearchFilters(documents, frozenset(_many(section)),
                                frozenset(_many(source)), tuple((metadata or {}).items()))
        return await self._services.search.search(
            self.space, query, k, mode=SearchMode(mode), filters=filters,
            group_by_document=group_by_document,
            expand=Expansion(expand) if expand else None, window=window)

    async def quote(self, document: str, text: str | None = None, *,
                    sentence: int | None = None, paragraph: int | None = None,
                    lines: tuple[int, int] | None = None, section: str | None = None,
                    first: int | None = None, last: int | None = None,
                    find_all: bool = False) -> list[Quote]:
        """The document's own words: by `text` (exact, tolerant, then fuzzy), by sentence,
        paragraph or lines, or a `section` (whole, or its first or last N sentences).
        `quote_not_found` when the text is not there."""
        quotes = self._services.quotes
        if text is not None:
            return await quotes.by_text(self.space, document, text, find_all=find_all)
        if section is not None:
            return [await quotes.section(self.space, document, section, first, last)]
        for unit, value in (("sentence", sentence), ("paragraph", paragraph)):
            if value is not None:
                return [await quotes.by_position(self.space, document, unit, value)]
        if lines is not None:
            return [await quotes.by_position(self.space, document, "line", *lines)]
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "quote needs text, sentence, paragraph, lines or section")

    async def context_block(self, query: str, max_tokens: int = 1500, *, k: int = 8,
                            mode: str | SearchMode = "auto") -> str:
        """The top hits as one Markdown block for a prompt: numbered passages, each with
        its citation (title, section, pages, URL, character offsets), at most
        `max_tokens` (four characters a token), cut only between sentences. Reference
        lists are left out."""
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
        return tool_definitions(style)

    async def call_tool(self, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
        """Run a tool call from a model. Arguments may be the JSON text models send. The
        answer is JSON-ready: the result, or `{"error": {"kind", "message"}}` for bad
        arguments and failures, so the model can correct itself."""
        try:
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments or "{}")
                except json.JSONDecodeError as exc:
                    raise SheafError(ErrorKind.INVALID_QUERY,
                                     f"arguments are not JSON: {exc}") from None
            checked = check_arguments(name, arguments)
            return await self._run_tool(name, checked)
        except SheafError as exc:
            return {"error": {"kind": exc.kind.value, "message": exc.message}}

    async def _run_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "ingest_url":
            url = str(arguments["url"])
            if not url.lower().startswith(("http://", "https://")):
                raise SheafError(ErrorKind.INVALID_URL, f"not an http(s) URL: {url}")
            result = await self.ingest(url, metadata=arguments.get("metadata"))
            if result.error_kind:
                raise SheafError(ErrorKind(result.error_kind), result.message or "failed")
            return result.as_dict()
        if name == "search_knowledge":
            hits = await self.search(str(arguments["query"]), int(arguments.get("k", 5)),
                                     mode=str(arguments.get("mode", "auto")),
                                     document=arguments.get("document_id"),
                                     section=arguments.get("section"),
                                     source=arguments.get("source"),
                                     metadata=arguments.get("metadata"),
                                     group_by_document=bool(
                                         arguments.get("group_by_document", False)),
                                     expand=arguments.get("expand"),
                                     window=int(arguments.get("window", 1)))
            return {"results": [_cited_hit(h) for h in hits]}
        if name == "get_exact_quote":
            document = str(arguments["document_id"])
            given = [key for key in ("text", "section", "sentence", "paragraph", "lines")
                     if key in arguments]
            if len(given) != 1:
                named = ", ".join(given) or "none"
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 "get_exact_quote needs text or section, or a sentence, "
                                 f"paragraph or lines: exactly one (got {named})")
            if "text" in arguments:
                found = await self.quote(document, str(arguments["text"]),
                                         find_all=bool(arguments.get("find_all", False)))
            elif "section" in arguments:
                found = await self.quote(document, section=str(arguments["section"]),
                                         first=arguments.get("first_sentences"),
                                         last=arguments.get("last_sentences"))
            elif "lines" in arguments:
                first_line, last_line = arguments["lines"]
                found = await self.quote(document, lines=(int(first_line), int(last_line)))
            else:
                found = await self.quote(document, sentence=arguments.get("sentence"),
                                         paragraph=arguments.get("paragraph"))
            return {"quotes": [_cited_quote(q) for q in found]}
        if name == "list_documents":
            listed = (await self.documents())[:int(arguments.get("limit", 100))]
            return {"documents": [
                {"document_id": d.id, "title": d.title, "url": d.url,
                 "location": d.location.as_dict(), "content": d.current.content_source,
                 "characters": d.current.characters,
                 **({"generated_summary": d.current.enrichment} if d.current.enrichment
                    else {})}
                for d in listed]}
        document_id = str(arguments["document_id"])
        sections = await self.sections(document_id)
        return {"document_id": document_id, "sections": [
            {"label": s.label, "heading": s.heading, "level": s.level,
             "path": list(s.path), "start": s.start, "end": s.end} for s in sections]}


def _many(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _cited_hit(hit: SearchHit) -> dict[str, Any]:
    chunk = hit.chunk
    return {"text": chunk.text, "score": round(hit.score, 6),
            "citation": {"document_id": hit.document_id, "title": hit.title, "url": hit.url,
                         "location": hit.location.as_dict() if hit.location else {},
                         "section": chunk.section_label,
                         "heading_path": list(chunk.heading_path), "pages": list(chunk.pages),
                         "start": chunk.start, "end": chunk.end},
            **({"context": attrs.asdict(hit.context)} if hit.context else {})}


def _cited_quote(quote: Quote) -> dict[str, Any]:
    return {"text": quote.text, "match": quote.match,
            "citation": {"document_id": quote.document_id, "title": quote.title,
                         "url": quote.url, "location": quote.location.as_dict(),
                         "section": quote.section_label,
                         "heading_path": list(quote.section_path), "pages": list(quote.pages),
                         "start": quote.start, "end": quote.end,
                         "sentences": list(quote.sentences)}}
