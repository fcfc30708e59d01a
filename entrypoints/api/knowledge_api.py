"""`KnowledgeApi`: what a knowledge base answers, whether this process opened its store
or another process holds it (ADR-0018, ADR-0022).

`sheaf.Knowledge` implements it on a store it opened; `HeldKnowledge` (the holder
package) implements it through the loopback API of the process that holds the store,
decoding that API's answers back into the same records. The CLI's commands, the HTTP
API, the MCP server and the LLM tools are written against it, so each has one body for
both. What only an opened store can do (reindexing, compaction, token counting,
evaluation) stays on `Knowledge`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

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
    from .knowledge_results import IngestProgress, StoredDocument


class KnowledgeApi(Protocol):
    """One space of one store. The methods are `Knowledge`'s, with the same signatures
    and results; see there for what each does."""

    space: str

    def with_space(self, space: str) -> KnowledgeApi:
        """The same store on another space."""

    async def ingest(self, source: str, *, metadata: Mapping[str, str] | None = None,
                     source_id: str | None = None, force: bool = False,
                     password: str | None = None, enrich: str | None = None,
                     prefer: Preference = "auto", dry_run: bool = False,
                     resume: bool = False, version_id: str | None = None,
                     upload_name: str | None = None, render: RenderMode = "auto",
                     confined_to: Sequence[str] = ()) -> IngestResult:
        """Ingest a URL or a file; failures come back as a `failed` result."""

    async def listing(self, sources: Sequence[str], *, recursive: bool = False
                      ) -> DirectoryListing:
        """The sources as `ingest_many` takes them, directories listed."""

    def ingest_many(self, sources: Sequence[str] | DirectoryListing, *,
                    concurrency: int = 4,
                    metadata: Mapping[str, str] | None = None,
                    recursive: bool = False, **options: Any
                    ) -> AsyncIterator[IngestProgress]:
        """Ingest sources `concurrency` at a time, a progress event as each finishes."""

    def crawl(self, start: str, *, scope: str = "prefix",
              include: Sequence[str] = (), exclude: Sequence[str] = (),
              max_pages: int = 100, max_depth: int = 5, concurrency: int = 2,
              delay: float = 0.5, discover: bool = True, restart: bool = False,
              metadata: Mapping[str, str] | None = None, **options: Any
              ) -> AsyncIterator[CrawlProgress | CrawlSummary]:
        """Crawl a site from `start`: a progress event per page, then the summary."""

    async def remove(self, document: str) -> DocumentRecord:
        """Remove a document and what only it used."""

    async def documents(self) -> list[DocumentRecord]:
        """The space's documents."""

    async def documents_page(self, limit: int | None = None, cursor: str | None = None
                             ) -> DocumentPage:
        """A page of the space's documents (newest change first) and the next cursor."""

    async def document(self, reference: str) -> StoredDocument:
        """A document with its Markdown."""

    async def record(self, reference: str) -> DocumentRecord:
        """A document's record without its text."""

    async def chunks(self, document: str, *, retrieval_prefix: bool = True
                     ) -> tuple[Chunk, ...]:
        """A document's section and snippet chunks."""

    async def policy(self) -> SpacePolicy:
        """The space's ingestion policy."""

    async def set_policy(self, *, ingestion_enabled: bool | None = None,
                         max_bytes: int | None = None,
                         allowed_kinds: Sequence[str] | None = None,
                         enrich: str | None = None) -> SpacePolicy:
        """Change what the space accepts; the new policy."""

    async def status(self) -> StoreStatus:
        """The store's location, schema version and counts per space."""

    async def sections(self, document: str) -> tuple[Section, ...]:
        """A document's labelled sections."""

    async def search(self, query: str, k: int = 10, *, mode: str | SearchMode = "auto",
                     section: str | Sequence[str] | None = None,
                     document: str | Sequence[str] | None = None,
                     source: str | Sequence[str] | None = None,
                     metadata: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
                     group_by_document: bool = False,
                     expand: str | Expansion | None = None, window: int = 1,
                     with_documents: bool = True) -> list[SearchHit]:
        """Ranked snippets with citations."""

    async def quote(self, document: str, text: str | None = None, *,
                    sentence: int | None = None, paragraph: int | None = None,
                    lines: tuple[int, int] | None = None, section: str | None = None,
                    first: int | None = None, last: int | None = None,
                    find_all: bool = False, mode: str = "verify") -> list[Quote]:
        """The document's own words, with offsets and citation; by text, only verified
        (or, `mode="locate"`, located) passages."""

    async def check_quote(self, document: str, text: str, *, mode: str = "verify",
                          find_all: bool = False) -> QuoteCheck:
        """Whether the document says `text`: the verdict as a record."""

    async def verify(self, claim: str, *, document: str | Sequence[str] | None = None,
                     k: int = 5) -> ClaimCheck:
        """Whether the stored documents say `claim`, sentence by sentence."""
