"""`HeldKnowledge`: `KnowledgeApi` on a store another sheaf process holds (ADR-0022).

Each call is one request to the holder's loopback API (`holder_api`), made in a worker
thread so the event loop never waits on it; each answer decodes (`value_codec`) into
the very records `Knowledge` returns there, and each failure into the same
`SheafError`. Local paths travel absolute (the holder's working directory is its own)
and come back as they were given. The threads are asyncio's, not anyio's: a command
going through a holder starts without anyio (`sheaf list`, ADR-0022); sheaf runs on
asyncio in any case.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ...domain.values.value_codec import from_plain, to_plain
from ..api.knowledge_results import IngestProgress, StoredDocument
from .holder_client import HolderClient, known_error

if TYPE_CHECKING:
    from ...application.crawling.site_crawl import CrawlProgress, CrawlSummary
    from ...application.extraction.content_resolver import Preference
    from ...application.quotes.claim_checks import ClaimCheck
    from ...application.quotes.quotes import Quote, QuoteCheck
    from ...application.search.search import SearchHit
    from ...domain.analysis.chunking import Chunk
    from ...domain.analysis.sections import Section
    from ...domain.rendering.render_need import RenderMode
    from ...domain.routing.directory_listing import DirectoryListing
    from ...domain.search.search_request import Expansion, SearchMode
    from ...domain.store.document_pages import DocumentPage
    from ...domain.store.ingestion import IngestResult, SpacePolicy
    from ...domain.store.knowledge_records import DocumentRecord, StoreStatus


def _travelling(source: str) -> str:
    from ...domain.fetching.url_normalisation import is_url

    return source if is_url(source) else os.path.abspath(source)


def _as_given(result: IngestResult, given: Mapping[str, str]) -> IngestResult:
    return attrs.evolve(result, source=given.get(result.source, result.source))


class HeldKnowledge:
    """One space of the store the process behind `client` holds."""

    def __init__(self, client: HolderClient, space: str) -> None:
        self._client = client
        self.space = space

    def with_space(self, space: str) -> HeldKnowledge:
        """The same holder on another space."""
        return HeldKnowledge(self._client, space)

    async def _call(self, operation: str, **arguments: Any) -> Any:
        return await asyncio.to_thread(self._client.call, operation, self.space,
                                       to_plain(arguments))

    # -- ingestion ---------------------------------------------------------------------
    async def ingest(self, source: str, *, metadata: Mapping[str, str] | None = None,
                     source_id: str | None = None, force: bool = False,
                     password: str | None = None, enrich: str | None = None,
                     prefer: Preference = "auto", dry_run: bool = False,
                     resume: bool = False, version_id: str | None = None,
                     upload_name: str | None = None, render: RenderMode = "auto",
                     confined_to: Sequence[str] = ()) -> IngestResult:
        """`Knowledge.ingest`, by the holder."""
        from ...domain.store.ingestion import IngestResult

        sent = _travelling(source)
        answer = await self._call(
            "ingest", source=sent, metadata=metadata, source_id=source_id, force=force,
            password=password, enrich=enrich, prefer=prefer, dry_run=dry_run, render=render,
            resume=resume, version_id=version_id, upload_name=upload_name,
            confined_to=list(confined_to))
        return _as_given(from_plain(IngestResult, answer), {sent: source})

    async def listing(self, sources: Sequence[str], *, recursive: bool = False
                      ) -> DirectoryListing:
        """`Knowledge.listing`, by the holder: the files under a directory are named by
        their absolute paths, a source given as a file as it was given."""
        from ...domain.routing.directory_listing import DirectoryListing

        sent = [_travelling(s) for s in sources]
        found = from_plain(DirectoryListing,
                           await self._call("listing", sources=sent, recursive=recursive))
        given = dict(zip(sent, sources, strict=True))
        return attrs.evolve(found, files=tuple(given.get(f, f) for f in found.files))

    async def ingest_many(self, sources: Sequence[str] | DirectoryListing, *,
                          concurrency: int = 4,
                          metadata: Mapping[str, str] | None = None,
                          recursive: bool = False, **options: Any
                          ) -> AsyncIterator[IngestProgress]:
        """`Knowledge.ingest_many`, by the holder: its progress events as they come."""
        from ...domain.routing.directory_listing import DirectoryListing
        from ...domain.store.ingestion import IngestResult

        listing = sources if isinstance(sources, DirectoryListing) else \
            await self.listing(sources, recursive=recursive)
        sent = [_travelling(f) for f in listing.files]
        given = dict(zip(sent, listing.files, strict=True))
        lines = self._client.lines("ingest_many", self.space, to_plain({
            "listing": DirectoryListing(tuple(sent), listing.skipped),
            "concurrency": concurrency, "metadata": metadata, **options}))
        try:
            while (line := await asyncio.to_thread(next, lines, None)) is not None:
                if "failure" in line:
                    raise known_error(line["failure"]["kind"], line["failure"]["detail"])
                event = line["progress"]
                yield IngestProgress(event["done"], event["total"], _as_given(
                    from_plain(IngestResult, event["result"]), given),
                    listing.skipped if event["done"] == 1 else ())
        finally:
            lines.close()

    async def crawl(self, start: str, *, scope: str = "prefix",
                    include: Sequence[str] = (), exclude: Sequence[str] = (),
                    max_pages: int = 100, max_depth: int = 5, concurrency: int = 2,
                    delay: float = 0.5, discover: bool = True, restart: bool = False,
                    metadata: Mapping[str, str] | None = None, **options: Any
                    ) -> AsyncIterator[CrawlProgress | CrawlSummary]:
        """`Knowledge.crawl`, by the holder: each page as it is visited, then the
        summary."""
        from ...application.crawling.site_crawl import CrawlProgress, CrawlSummary

        lines = self._client.lines("crawl", self.space, to_plain({
            "start": start, "scope": scope, "include": list(include),
            "exclude": list(exclude), "max_pages": max_pages, "max_depth": max_depth,
            "concurrency": concurrency, "delay": delay, "discover": discover,
            "restart": restart, "metadata": metadata, **options}))
        try:
            while (line := await asyncio.to_thread(next, lines, None)) is not None:
                if "failure" in line:
                    raise known_error(line["failure"]["kind"], line["failure"]["detail"])
                if "summary" in line:
                    yield from_plain(CrawlSummary, line["summary"])
                else:
                    yield from_plain(CrawlProgress, line["progress"])
        finally:
            lines.close()

    async def remove(self, document: str) -> DocumentRecord:
        """`Knowledge.remove`, by the holder."""
        from ...domain.store.knowledge_records import DocumentRecord

        return from_plain(DocumentRecord, await self._call("remove", document=document))

    # -- reading -----------------------------------------------------------------------
    async def documents(self) -> list[DocumentRecord]:
        """`Knowledge.documents`, by the holder."""
        from ...domain.store.knowledge_records import DocumentRecord

        return [from_plain(DocumentRecord, d) for d in await self._call("documents")]

    async def documents_page(self, limit: int | None = None, cursor: str | None = None
                             ) -> DocumentPage:
        """`Knowledge.documents_page`, by the holder."""
        from ...domain.store.document_pages import DocumentPage

        return from_plain(DocumentPage, await self._call("documents_page", limit=limit,
                                                         cursor=cursor))

    async def document(self, reference: str) -> StoredDocument:
        """`Knowledge.document`, by the holder."""
        from ...domain.store.knowledge_records import DocumentRecord

        answer = await self._call("document", reference=reference)
        return StoredDocument(from_plain(DocumentRecord, answer["record"]),
                              answer["markdown"])

    async def record(self, reference: str) -> DocumentRecord:
        """`Knowledge.record`, by the holder."""
        from ...domain.store.knowledge_records import DocumentRecord

        return from_plain(DocumentRecord, await self._call("record", reference=reference))

    async def chunks(self, document: str, *, retrieval_prefix: bool = True
                     ) -> tuple[Chunk, ...]:
        """`Knowledge.chunks`, by the holder."""
        from ...domain.analysis.chunking import Chunk

        answer = await self._call("chunks", document=document,
                                  retrieval_prefix=retrieval_prefix)
        return tuple(from_plain(Chunk, c) for c in answer)

    async def policy(self) -> SpacePolicy:
        """`Knowledge.policy`, by the holder."""
        from ...domain.store.ingestion import SpacePolicy

        return from_plain(SpacePolicy, await self._call("policy"))

    async def set_policy(self, *, ingestion_enabled: bool | None = None,
                         max_bytes: int | None = None,
                         allowed_kinds: Sequence[str] | None = None,
                         enrich: str | None = None) -> SpacePolicy:
        """`Knowledge.set_policy`, by the holder."""
        from ...domain.store.ingestion import SpacePolicy

        return from_plain(SpacePolicy, await self._call(
            "set_policy", ingestion_enabled=ingestion_enabled, max_bytes=max_bytes,
            allowed_kinds=allowed_kinds, enrich=enrich))

    async def status(self) -> StoreStatus:
        """`Knowledge.status`, by the holder."""
        from ...domain.store.knowledge_records import StoreStatus

        return from_plain(StoreStatus, await self._call("status"))

    async def sections(self, document: str) -> tuple[Section, ...]:
        """`Knowledge.sections`, by the holder."""
        from ...domain.analysis.sections import Section

        return tuple(from_plain(Section, s)
                     for s in await self._call("sections", document=document))

    async def search(self, query: str, k: int = 10, *, mode: str | SearchMode = "auto",
                     section: str | Sequence[str] | None = None,
                     document: str | Sequence[str] | None = None,
                     source: str | Sequence[str] | None = None,
                     metadata: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
                     group_by_document: bool = False,
                     expand: str | Expansion | None = None, window: int = 1,
                     with_documents: bool = True) -> list[SearchHit]:
        """`Knowledge.search`, by the holder."""
        from ...application.search.search import SearchHit

        pairs = list(metadata.items()) if isinstance(metadata, Mapping) else metadata
        answer = await self._call(
            "search", query=query, k=k, mode=mode, section=section, document=document,
            source=source, metadata=pairs, group_by_document=group_by_document,
            expand=expand, window=window, with_documents=with_documents)
        return [from_plain(SearchHit, hit) for hit in answer]

    async def quote(self, document: str, text: str | None = None, *,
                    sentence: int | None = None, paragraph: int | None = None,
                    lines: tuple[int, int] | None = None, section: str | None = None,
                    first: int | None = None, last: int | None = None,
                    find_all: bool = False, mode: str = "verify") -> list[Quote]:
        """`Knowledge.quote`, by the holder: a text it does not verify raises the same
        `QuoteNotVerified`, rebuilt from the check the holder sends back."""
        from ...application.quotes.quotes import Quote, QuoteNotVerified

        if text is not None:
            check = await self.check_quote(document, text, mode=mode, find_all=find_all)
            if not check.quotes:
                raise QuoteNotVerified(check)
            return list(check.quotes)
        answer = await self._call(
            "quote", document=document, text=text, sentence=sentence,
            paragraph=paragraph, lines=lines, section=section, first=first, last=last,
            find_all=find_all)
        return [from_plain(Quote, passage) for passage in answer]

    async def check_quote(self, document: str, text: str, *, mode: str = "verify",
                          find_all: bool = False) -> QuoteCheck:
        """`Knowledge.check_quote`, by the holder."""
        from ...application.quotes.quotes import QuoteCheck

        answer = await self._call("check_quote", document=document, text=text, mode=mode,
                                  find_all=find_all)
        return from_plain(QuoteCheck, answer)

    async def verify(self, claim: str, *, document: str | Sequence[str] | None = None,
                     k: int = 5) -> ClaimCheck:
        """`Knowledge.verify`, by the holder."""
        from ...application.quotes.claim_checks import ClaimCheck

        named = [document] if isinstance(document, str) else document
        answer = await self._call("verify", claim=claim,
                                  document=None if named is None else list(named), k=k)
        return from_plain(ClaimCheck, answer)
