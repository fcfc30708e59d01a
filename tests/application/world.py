"""The use-case harness: the ingestion use case wired to the in-memory fake of every port.

The use-case tests run on these fakes alone, so they start no database; the stores'
own behaviour on DuckDB and PostgreSQL is the contract suite's (tests/contract/). A test
that wants a real search index hands `World` a DuckDB store in memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts
from sheaf.application.store.storage import Storage

if TYPE_CHECKING:
    from sheaf.entrypoints.api.composition import OpenedStore

NOTES = "/data/notes.md"
NOTE_TEXT = b"# Field notes\n\nThe heron returned on Tuesday.\n"


class World:
    """Ingestion over fakes: files, HTTP, extractors, blobs, artifacts and embedder, and
    the fake store unless the test hands it another."""

    def __init__(self, store: OpenedStore | None = None) -> None:
        self.http = MemoryHttpClient(HttpSettings(allow_private_network=True))
        html, pdf = MemoryHtmlExtractor(), MemoryPdfExtractor()
        self.files = MemoryFileReader({NOTES: NOTE_TEXT})
        self.store: OpenedStore = store or MemoryKnowledgeStore()
        self.blobs = MemoryBlobStore()
        self.ingestion = Ingestion(IngestionPorts(
            ContentResolver(self.http, html, pdf), DocumentExtraction(html, pdf), self.files,
            self.store.storage(), self.blobs, MemoryArtifactStore()), embedder=MemoryEmbedder())

    @property
    def storage(self) -> Storage:
        return self.store.storage()

    def stages(self, source: str) -> list[str]:
        """The stages ingestion recorded for `source`, in order."""
        return [e.stage for e in self.ingestion.recorder.events if e.source == source]

    async def ingest_heron_notes(self, count: int) -> None:
        """`count` one-line notes that all mention a heron, each its own document: a
        search for "heron" hits every one of them."""
        for n in range(count):
            path = f"/d/n{n}.md"
            self.files.files[path] = f"# Note {n}\n\nThe heron came back on day {n}.\n".encode()
            await self.ingestion.ingest(path)
