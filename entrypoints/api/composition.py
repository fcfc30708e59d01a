"""The composition root: real adapters wired into the use cases."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from ...adapters.blobs.filesystem_artifact_store import FilesystemArtifactStore
from ...adapters.blobs.filesystem_blob_store import FilesystemBlobStore
from ...application.concurrency.worker_pool import WorkerPool
from ...application.store.document_catalogue import DocumentCatalogue
from ...domain.errors import ErrorKind, SheafError
from .fault_injection import fault_point_from
from .settings import EmbedderSettings

# The extractors (html5lib, pdfminer, pikepdf), aiohttp and the remote models are
# imported where they are built, and so are the use cases beyond the catalogue (search,
# quotes, structure, reindexing, enrichment): a command that only reads the store's
# records (`sheaf list`) never loads them (ADR-0022).
if TYPE_CHECKING:
    import anyio

    from ...adapters.fetching.aiohttp_http_client import AiohttpHttpClient
    from ...adapters.fetching.http_settings import HttpSettings
    from ...adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
    from ...application.crawling.site_crawl import SiteCrawl
    from ...application.enrichment.enrichment import Enrichment, TokenBudget
    from ...application.extraction.content_resolver import ContentResolver
    from ...application.extraction.document_extraction import DocumentExtraction
    from ...application.ingestion.ingestion import Ingestion
    from ...application.ingestion.reindexing import Reindexing
    from ...application.ingestion.stage_events import StageEvent
    from ...application.ports.artifact_store import ArtifactStore
    from ...application.ports.blob_store import BlobStore
    from ...application.ports.embedder import Embedder
    from ...application.ports.file_reader import FileReader
    from ...application.ports.format_extractor import FormatExtractor
    from ...application.ports.http_client import HttpClient
    from ...application.ports.language_model import LanguageModel
    from ...application.ports.ocr_engine import OcrEngine
    from ...application.ports.pdf_extractor import PdfExtractor
    from ...application.quotes.claim_checks import ClaimChecks
    from ...application.quotes.quotes import Quotes
    from ...application.search.search import Search
    from ...application.store.document_structure import DocumentStructure
    from ...application.store.storage import Storage
    from ...domain.analysis.chunking import ChunkSizes
    from ...domain.routing.routing import Route
    from .settings import LanguageModelSettings, Settings

class OpenedStore(Protocol):
    """A store as the composition root holds it, whichever adapter: the ports it hands
    out, and its close (DuckDB, PostgreSQL and the in-memory store alike)."""

    def storage(self) -> Storage: ...

    async def aclose(self) -> None: ...


def build_resolver(settings: HttpSettings, pool: WorkerPool | None = None,
                   extraction: DocumentExtraction | None = None
                   ) -> tuple[AiohttpHttpClient, ContentResolver]:
    """A resolver over aiohttp and `extraction` (`build_extraction`'s by default), so
    fetched bodies and local files are read by the same extractors, rendering pages in
    Chromium when one is installed; close the client when done (it closes the
    browser)."""
    from ...adapters.fetching.aiohttp_http_client import AiohttpHttpClient
    from ...adapters.rendering.chromium_renderer import ChromiumRenderer, find_chromium
    from ...application.extraction.content_resolver import ContentResolver

    client = AiohttpHttpClient(settings)
    extraction = extraction or build_extraction(pool)
    renderer = None
    if (executable := find_chromium()) is not None:
        # Started only when a page needs it; its requests go through this client.
        renderer = ChromiumRenderer(client, executable=executable)
        client.close_with(renderer.aclose)
    return client, ContentResolver(client, extraction.html, extraction.pdf,
                                   extraction=extraction, renderer=renderer)


def build_extraction(pool: WorkerPool | None = None) -> DocumentExtraction:
    """Every format sheaf reads: HTML, PDF, text, CSV, DOCX, PPTX, XLSX, EPUB,
    OpenDocument, RTF, and images and scanned PDF pages through Tesseract (when it is
    installed). The PDF engines, the office readers and OCR are imported and built when
    the first document of their kind arrives (`adapters/extraction/deferred_extractors`):
    most of a start-up's imports, which a run over web pages never needs (ADR-0039)."""
    from ...adapters.extraction.deferred_extractors import (
        DeferredFormatExtractor,
        DeferredOcrEngine,
        DeferredPdfExtractor,
    )
    from ...adapters.html.html5lib_extractor import Html5libExtractor
    from ...application.extraction.document_extraction import DocumentExtraction
    from ...domain.routing.routing import Route

    limiter = pool.limiter if pool else None
    formats: dict[Route, FormatExtractor] = {
        route: DeferredFormatExtractor(functools.partial(_format_extractor, route, limiter))
        for route in (Route.DOCX, Route.PPTX, Route.XLSX, Route.EPUB, Route.ODF, Route.RTF)}
    return DocumentExtraction(
        Html5libExtractor(limiter),
        DeferredPdfExtractor(functools.partial(_pdf_extractor, limiter)), formats=formats,
        ocr=DeferredOcrEngine(functools.partial(_ocr_engine, limiter)))


def _pdf_extractor(limiter: anyio.CapacityLimiter | None) -> PdfExtractor:
    from ...adapters.pdf.pdfminer_extractor import PdfminerExtractor

    return PdfminerExtractor(limiter=limiter)


def _ocr_engine(limiter: anyio.CapacityLimiter | None) -> OcrEngine:
    from ...adapters.ocr.tesseract_ocr import TesseractOcr

    return TesseractOcr(limiter=limiter)


def _format_extractor(route: Route, limiter: anyio.CapacityLimiter | None
                      ) -> FormatExtractor:
    """The reader of one office format. Packages embedded in a document or deck are read
    one level deep, by readers that read none embedded in them in turn."""
    from ...domain.routing.routing import Route

    if route is Route.DOCX or route is Route.PPTX:
        from ...adapters.office.docx_extractor import DocxExtractor
        from ...adapters.office.pptx_extractor import PptxExtractor
        from ...adapters.office.xlsx_extractor import XlsxExtractor

        embedded = {"xlsx": XlsxExtractor().read, "docx": DocxExtractor().read,
                    "pptx": PptxExtractor().read}
        reader = DocxExtractor if route is Route.DOCX else PptxExtractor
        return reader(limiter, embedded=embedded)
    if route is Route.XLSX:
        from ...adapters.office.xlsx_extractor import XlsxExtractor

        return XlsxExtractor(limiter)
    if route is Route.EPUB:
        from ...adapters.office.epub_extractor import EpubExtractor

        return EpubExtractor(limiter)
    if route is Route.ODF:
        from ...adapters.office.odf_extractor import OdfExtractor

        return OdfExtractor(limiter)
    from ...adapters.office.rtf_extractor import RtfExtractor

    return RtfExtractor(limiter)


# What ingestion is built from, relative to this package: the extractors, the HTTP
# client and the use case.
_INGESTION_MODULES = (
    "...adapters.fetching.aiohttp_http_client", "...adapters.files.filesystem_file_reader",
    "...adapters.html.html5lib_extractor", "...adapters.ocr.tesseract_ocr",
    "...adapters.office.docx_extractor", "...adapters.office.epub_extractor",
    "...adapters.office.odf_extractor", "...adapters.office.rtf_extractor",
    "...adapters.office.pptx_extractor", "...adapters.office.xlsx_extractor",
    "...adapters.pdf.pdfminer_extractor", "...application.extraction.content_resolver",
    "...application.extraction.document_extraction", "...application.ingestion.ingestion",
    # numpy, which the first near-duplicate check would import in a worker thread.
    "...adapters.store.duckdb.fingerprint_sign_table", ".process_preparation")


def import_ingestion() -> None:
    """Import what ingestion is built from, without building it: for a server to run in
    a worker thread before it listens. Left to the first ingest, the imports held the
    event loop for up to a second (ADR-0028)."""
    import importlib

    for name in ingestion_modules():
        importlib.import_module(name)


def ingestion_modules() -> list[str]:
    """The absolute names of the modules ingestion is built from."""
    from importlib.util import resolve_name

    return [resolve_name(name, __package__) for name in _INGESTION_MODULES]


def blob_folder(store_path: Path) -> Path:
    """Blobs live beside the DuckDB file: `kb.duckdb` keeps them in `kb.blobs/`."""
    return store_path.with_suffix(".blobs")


@attrs.define
class KnowledgeServices:
    """The embedded default: a DuckDB file with its blob folder, and the use cases on it.

    Ingestion (the HTTP client, the extractors) is built on first use: reading and
    searching never import aiohttp, html5lib or pdfminer. So are structure, quotes,
    search and reindexing: listing the catalogue imports none of their modules."""

    store: OpenedStore
    """The store's adapter: its ports are `storage`; closed with the services."""
    storage: Storage
    catalogue: DocumentCatalogue
    pool: WorkerPool
    build_ingestion: Callable[[], tuple[HttpClient, Ingestion]]
    embedder: Embedder | None = None
    enrichment: Enrichment | None = None
    closers: tuple[Callable[[], Awaitable[None]], ...] = ()
    """What else was opened for these services (an S3 connection), closed with them."""
    artifacts: ArtifactStore | None = None
    """Where staged files and crawl journals are kept."""
    queue_configured: bool = False
    """Whether an ingest queue may hold bytes waiting, unreferenced, in the blob store."""
    client: HttpClient | None = attrs.field(default=None, init=False)
    """None until ingestion is first used."""
    _ingestion: Ingestion | None = attrs.field(default=None, init=False)
    _structure: DocumentStructure | None = attrs.field(default=None, init=False)
    _quotes: Quotes | None = attrs.field(default=None, init=False)
    _claim_checks: ClaimChecks | None = attrs.field(default=None, init=False)
    _search: Search | None = attrs.field(default=None, init=False)
    _reindexing: Reindexing | None = attrs.field(default=None, init=False)
    _crawling: SiteCrawl | None = attrs.field(default=None, init=False)

    @property
    def ingestion(self) -> Ingestion:
        if self._ingestion is None:
            self.client, self._ingestion = self.build_ingestion()
        return self._ingestion

    @property
    def structure(self) -> DocumentStructure:
        if self._structure is None:
            from ...application.store.document_structure import DocumentStructure

            self._structure = DocumentStructure(self.catalogue, self.pool)
        return self._structure

    @property
    def quotes(self) -> Quotes:
        if self._quotes is None:
            from ...application.quotes.quotes import Quotes

            self._quotes = Quotes(self.structure, self.pool)
        return self._quotes

    @property
    def claim_checks(self) -> ClaimChecks:
        if self._claim_checks is None:
            from ...application.quotes.claim_checks import ClaimChecks

            self._claim_checks = ClaimChecks(self.search, self.quotes)
        return self._claim_checks

    @property
    def search(self) -> Search:
        if self._search is None:
            from ...application.search.search import Search

            self._search = Search(self.storage, self.embedder, self.structure)
        return self._search

    @property
    def reindexing(self) -> Reindexing:
        if self._reindexing is None:
            from ...application.ingestion.reindexing import Reindexing

            self._reindexing = Reindexing(self.storage, self.structure, self.embedder,
                                          self.enrichment)
        return self._reindexing

    @property
    def crawling(self) -> SiteCrawl:
        if self._crawling is None:
            from ...adapters.html.html5lib_link_reader import Html5libLinkReader
            from ...application.crawling.crawl_journals import CrawlJournals
            from ...application.crawling.site_crawl import CrawlPorts, SiteCrawl

            ingestion = self.ingestion
            assert self.client is not None and self.artifacts is not None  # built with it
            self._crawling = SiteCrawl(CrawlPorts(
                self.client, ingestion.resolver, Html5libLinkReader(), ingestion.ingest,
                CrawlJournals(self.artifacts), self.pool))
        return self._crawling

    async def aclose(self) -> None:
        # Every close runs even when one before it fails: a client that cannot close must
        # not leave the store unclosed (and without its clean-close marker).
        async with contextlib.AsyncExitStack() as closing:
            closing.push_async_callback(self.storage.close)
            for close_other in self.closers:
                closing.push_async_callback(close_other)
            if self.enrichment is not None:
                closing.push_async_callback(self.enrichment.model.aclose)
            if self.embedder is not None:
                closing.push_async_callback(self.embedder.aclose)
            close = getattr(self.client, "aclose", None)  # an injected client may need none
            if close is not None:
                closing.push_async_callback(close)


def build_language_model(settings: LanguageModelSettings | None) -> LanguageModel | None:
    """The enrichment model; None (enrichment off) without settings."""
    if settings is None:
        return None
    from ...adapters.models.openai_chat_model import OpenAiChatModel

    return OpenAiChatModel(settings.base_url, settings.model, api_key=settings.api_key,
                           concurrency=settings.concurrency)


def build_embedder(settings: EmbedderSettings | str) -> Embedder | None:
    """An embedder from its settings (a bare spec string means no remote options)."""
    if isinstance(settings, str):
        settings = EmbedderSettings(settings)
    kind, argument = settings.kind, settings.argument
    if kind == "none":
        return None
    if kind == "hashing":
        from ...adapters.models.hashing_embedder import HashingEmbedder

        return HashingEmbedder(int(argument)) if argument else HashingEmbedder()
    if kind in ("local", "onnx"):
        from ...adapters.models.onnx_embedder import OnnxEmbedder

        return OnnxEmbedder.from_directory(Path(argument)) if argument else \
            OnnxEmbedder.installed()
    if kind == "openai" and argument:
        from ...adapters.models.openai_embedder import OpenAiEmbedder

        return OpenAiEmbedder(settings.url or "https://api.openai.com/v1", argument,
                              dimension=settings.dimension, api_key=settings.api_key,
                              input_limit=settings.max_tokens)
    if kind == "ollama" and argument:
        from ...adapters.models.ollama_embedder import OllamaEmbedder

        return OllamaEmbedder(settings.url or "http://127.0.0.1:11434", argument,
                              dimension=settings.dimension, api_key=settings.api_key,
                              input_limit=settings.max_tokens)
    raise SheafError(ErrorKind.CONFIGURATION,
                     f"unknown embedder {settings.spec!r}: use hashing, hashing:DIM, local, "
                     "onnx:DIR, openai:MODEL, ollama:MODEL or none")


def build_knowledge(settings: HttpSettings, store_path: Path | None,
                    listener: Callable[[StageEvent], None] | None = None,
                    embedder: Embedder | None = None,
                    pool: WorkerPool | None = None,
                    language_model: LanguageModel | None = None,
                    budget: TokenBudget | None = None,
                    chunk_sizes: ChunkSizes | None = None,
                    adapters: InjectedAdapters | None = None,
                    extraction_processes: int = 0) -> KnowledgeServices:
    """Everything on one DuckDB file (or on the `adapters` given, for tests and
    embedding); CPU-heavy work shares one bounded `pool`; enrichment is on when a
    `language_model` is given. With `extraction_processes`, files and uploads are
    extracted, analysed and encoded in at most that many child processes (a server's
    loop keeps the GIL: ADR-0037); in worker threads otherwise."""
    pool = pool or WorkerPool()
    given = adapters or InjectedAdapters()
    if given.store is not None:
        store = given.store
    else:
        if store_path is None:
            raise SheafError(ErrorKind.INVALID_QUERY, "no store path and no store given")
        from ...adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore

        store = DuckDbKnowledgeStore(store_path)
    storage = store.storage()
    folder = blob_folder(store_path) if store_path is not None else None
    if folder is None:  # nothing on disk: blobs and artifacts in memory too
        from ...adapters.blobs.memory_artifact_store import MemoryArtifactStore
        from ...adapters.blobs.memory_blob_store import MemoryBlobStore

        blobs: BlobStore = given.blobs or MemoryBlobStore()
        artifacts: ArtifactStore = given.artifacts or MemoryArtifactStore()
    else:
        blobs = given.blobs or FilesystemBlobStore(folder)
        artifacts = given.artifacts or FilesystemArtifactStore(folder)
    catalogue = DocumentCatalogue(storage, blobs, artifacts,
                                  fault_point=fault_point_from(os.environ))
    enrichment = None
    if language_model is not None:
        from ...application.enrichment.enrichment import Enrichment

        enrichment = Enrichment(storage, catalogue, language_model, embedder, budget=budget)
    processes = None
    if extraction_processes > 0:
        from .process_preparation import ProcessPreparation

        processes = ProcessPreparation(extraction_processes, build_extraction,
                                       ingestion_modules())

    def build_ingestion() -> tuple[HttpClient, Ingestion]:
        from ...adapters.files.filesystem_file_reader import FilesystemFileReader
        from ...application.extraction.content_resolver import ContentResolver
        from ...application.ingestion.ingestion import Ingestion, IngestionPorts
        from ...application.ingestion.stage_events import StageRecorder
        from ...application.ingestion.version_preparation import prepare_version
        from ...domain.analysis.chunking import DEFAULT_SIZES

        extraction = build_extraction(pool)
        preparation = None if processes is None else processes.preparing(
            functools.partial(prepare_version, extraction=extraction, pool=pool))
        client: HttpClient
        if given.http_client is not None:
            client = given.http_client
            resolver = ContentResolver(client, extraction.html, extraction.pdf,
                                       extraction=extraction)
        else:
            client, resolver = build_resolver(settings, pool, extraction)
        return client, Ingestion(
            IngestionPorts(resolver, extraction, given.files or FilesystemFileReader(),
                           storage, blobs, artifacts),
            recorder=StageRecorder(listener), embedder=embedder, pool=pool,
            preparation=preparation, enrichment=enrichment,
            chunk_sizes=chunk_sizes or DEFAULT_SIZES)

    return KnowledgeServices(store, storage, catalogue, pool, build_ingestion, embedder,
                             enrichment, artifacts=artifacts,
                             closers=(processes.aclose,) if processes else ())


async def open_store(settings: Settings) -> OpenedStore:
    """The store `settings` name: PostgreSQL for a postgresql:// URL, else the DuckDB
    file (opened in a worker thread: it connects, migrates and may check indexes; a file
    another process holds is waited for, then refused with `store_locked`)."""
    if settings.store_url is not None:
        try:
            from ...adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
        except ImportError as exc:
            raise SheafError(ErrorKind.STORAGE,
                             f"{settings.location} needs the postgres extra: pip install "
                             f"'sheaf[postgres]' ({exc})") from None
        return await PostgresKnowledgeStore.connect(settings.store_url,
                                                    ef_search=settings.hnsw_ef_search)
    import anyio

    from ...adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
    from .held_store import waiting_for_store

    def opened() -> DuckDbKnowledgeStore:
        return DuckDbKnowledgeStore(settings.store)

    if settings.lock_wait <= 0:  # its caller waits (the CLI, around its holder check)
        return await anyio.to_thread.run_sync(opened)
    return await anyio.to_thread.run_sync(waiting_for_store, settings.store,
                                          settings.lock_wait, opened)


def open_blob_stores(settings: Settings) -> tuple[BlobStore, ArtifactStore,
                                                  Callable[[], Awaitable[None]]] | None:
    """The S3 blob and artifact stores `settings.blobs` names, with what closes their
    shared connection; None for the default folder."""
    if settings.blobs is None:
        return None
    from ...adapters.blobs.s3.blob_store import blob_stores_from_url

    blobs, artifacts = blob_stores_from_url(settings.blobs)
    return blobs, artifacts, blobs.aclose


@attrs.frozen
class InjectedAdapters:
    """Adapters to use instead of the defaults (DuckDB file, filesystem, aiohttp)."""

    store: OpenedStore | None = None
    blobs: BlobStore | None = None
    artifacts: ArtifactStore | None = None
    http_client: HttpClient | None = None
    files: FileReader | None = None
