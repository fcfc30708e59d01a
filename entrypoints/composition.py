"""The composition root: real adapters wired into the use cases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from sheaf.adapters.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.duckdb_knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.filesystem_artifact_store import FilesystemArtifactStore
from sheaf.adapters.filesystem_blob_store import FilesystemBlobStore
from sheaf.adapters.filesystem_file_reader import FilesystemFileReader
from sheaf.adapters.html5lib_extractor import Html5libExtractor
from sheaf.adapters.http_settings import HttpSettings
from sheaf.adapters.pdfminer_extractor import PdfminerExtractor
from sheaf.application.content_resolver import ContentResolver
from sheaf.application.document_catalogue import DocumentCatalogue
from sheaf.application.document_extraction import DocumentExtraction
from sheaf.application.document_structure import DocumentStructure
from sheaf.application.ingestion import Ingestion
from sheaf.application.quotes import Quotes
from sheaf.application.reindexing import Reindexing
from sheaf.application.search import Search
from sheaf.application.stage_events import StageEvent, StageRecorder


def build_resolver(settings: HttpSettings) -> tuple[AiohttpHttpClient, ContentResolver]:
    """A resolver over aiohttp, html5lib and pdfminer; close the client when done."""
    client = AiohttpHttpClient(settings)
    return client, ContentResolver(client, Html5libExtractor(), PdfminerExtractor())


def build_extraction() -> DocumentExtraction:
    return DocumentExtraction(Html5libExtractor(), PdfminerExtractor())


def blob_folder(store_path: Path) -> Path:
    """Blobs live beside the DuckDB file: `kb.duckdb` keeps them in `kb.blobs/`."""
    return store_path.with_suffix(".blobs")


@attrs.define
class KnowledgeServices:
    """The embedded default: a DuckDB file with its blob folder, and the use cases on it."""

    client: AiohttpHttpClient
    store: DuckDbKnowledgeStore
    ingestion: Ingestion
    catalogue: DocumentCatalogue
    structure: DocumentStructure
    quotes: Quotes
    reindexing: Reindexing
    search: Search

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.store.aclose()


def build_knowledge(settings: HttpSettings, store_path: Path,
                    listener: Callable[[StageEvent], None] | None = None) -> KnowledgeServices:
    client, resolver = build_resolver(settings)
    store = DuckDbKnowledgeStore(store_path)
    blobs = FilesystemBlobStore(blob_folder(store_path))
    ingestion = Ingestion(resolver, build_extraction(), FilesystemFileReader(), store, blobs,
                          FilesystemArtifactStore(blob_folder(store_path)),
                          recorder=StageRecorder(listener))
    catalogue = DocumentCatalogue(store, blobs)
    structure = DocumentStructure(catalogue)
    return KnowledgeServices(client, store, ingestion, catalogue, structure, Quotes(structure),
                             Reindexing(store, structure), Search(store))
