"""Several processes on one PostgreSQL: two stores (two pools, as two workers have)
commit at the same moment, through the real ingestion use case, and the same document
is never stored twice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import TracebackType

import anyio
import attrs
import pytest

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.extraction.document_extraction import DocumentExtraction
from sheaf.application.ingestion.ingestion import Ingestion, IngestionPorts
from sheaf.application.ports.unit_of_work import UnitOfWork
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.store.ingestion import IngestStatus, SourceRef
from sheaf.domain.store.version_bundle import VersionBundle

pytestmark = pytest.mark.anyio


class Rendezvous:
    """Holds every commit until `parties` of them are waiting: all of them then read
    the store before any of them wrote, the race two workers can run into."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.arrived = 0
        self.all_here = anyio.Event()

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived >= self.parties:
            self.all_here.set()
        with anyio.fail_after(30):
            await self.all_here.wait()


@attrs.define
class HeldUnitOfWork:
    inner: UnitOfWork
    meeting: Rendezvous

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def __aenter__(self) -> HeldUnitOfWork:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, kind: type[BaseException] | None,
                        error: BaseException | None, trace: TracebackType | None) -> None:
        await self.inner.__aexit__(kind, error, trace)

    async def commit(self) -> None:
        await self.meeting.wait()
        await self.inner.commit()


def worker(store: PostgresKnowledgeStore, files: dict[str, bytes],
           meeting: Rendezvous) -> Ingestion:
    """One worker's ingestion: its own store pool, locks, blobs and file reader."""
    storage = store.storage()
    held = attrs.evolve(storage, unit_of_work=lambda: HeldUnitOfWork(storage.unit_of_work(),
                                                                     meeting))
    html, pdf = MemoryHtmlExtractor(), MemoryPdfExtractor()
    return Ingestion(IngestionPorts(
        ContentResolver(MemoryHttpClient(HttpSettings(allow_private_network=True)), html,
                        pdf), DocumentExtraction(html, pdf), MemoryFileReader(files),
        held, MemoryBlobStore(), MemoryArtifactStore()), embedder=MemoryEmbedder())


@pytest.fixture
async def two_stores(postgres_schema_url: str
                     ) -> AsyncIterator[tuple[PostgresKnowledgeStore, PostgresKnowledgeStore]]:
    # Both migrate at once on an empty schema: the advisory lock makes one wait.
    stores: list[PostgresKnowledgeStore] = []

    async def open_one() -> None:
        stores.append(await PostgresKnowledgeStore.connect(postgres_schema_url, max_size=4))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(open_one)
        tasks.start_soon(open_one)
    yield stores[0], stores[1]
    for store in stores:
        await store.aclose()


async def counts(url_store: PostgresKnowledgeStore) -> tuple[int, int, int, int]:
    rows = await url_store.connection.rows(
        "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM versions), "
        "(SELECT count(*) FROM sources), (SELECT count(*) FROM chunks)")
    return tuple(int(x) for x in rows[0])  # type: ignore[return-value]


TEXT = (b"# Heron notes\n\nThe heron returned on Tuesday and stood in the reeds.\n\n"
        b"## Later\n\nIt left at dusk, flying low over the water.\n")


async def test_two_workers_storing_one_source_store_it_once(
        two_stores: tuple[PostgresKnowledgeStore, PostgresKnowledgeStore]) -> None:
    meeting = Rendezvous(2)
    workers = [worker(store, {"/data/heron.md": TEXT}, meeting) for store in two_stores]
    results = []

    async def ingest(ingestion: Ingestion) -> None:
        results.append(await ingestion.ingest("/data/heron.md"))

    async with anyio.create_task_group() as tasks:
        for ingestion in workers:
            tasks.start_soon(ingest, ingestion)
    assert [r.status for r in results] == [IngestStatus.NEW, IngestStatus.NEW]
    assert len({r.document_id for r in results}) == 1
    documents, versions, sources, chunks = await counts(two_stores[0])
    assert (documents, versions, sources) == (1, 1, 1)
    single = await two_stores[1].catalogue.chunks("default", str(results[0].version_id))
    assert chunks == len(single) > 0
    # Searching finds each snippet once.
    hits = await two_stores[1].index.search_text("default", "heron reeds", 10)
    assert len(hits) == len({i for i, _ in hits}) >= 1
    # A later ingest by either worker sees the stored document as unchanged.
    again = worker(two_stores[1], {"/data/heron.md": TEXT}, Rendezvous(1))
    assert (await again.ingest("/data/heron.md")).status is IngestStatus.UNCHANGED


async def test_the_same_bytes_from_two_sources_at_once_make_one_document(
        two_stores: tuple[PostgresKnowledgeStore, PostgresKnowledgeStore]) -> None:
    meeting = Rendezvous(2)
    files = {"/data/a.md": TEXT, "/mirror/a-copy.md": TEXT}
    results = []

    async def ingest(store: PostgresKnowledgeStore, path: str) -> None:
        results.append(await worker(store, files, meeting).ingest(path))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(ingest, two_stores[0], "/data/a.md")
        tasks.start_soon(ingest, two_stores[1], "/mirror/a-copy.md")
    documents, versions, sources, _ = await counts(two_stores[0])
    assert (documents, versions, sources) == (1, 1, 2)
    (document,) = await two_stores[0].catalogue.documents("default")
    assert {s.key for s in document.sources} == set(files)
    for path in files:
        found = await two_stores[1].catalogue.find("default", path)
        assert found is not None and found.id == document.id


async def test_many_documents_committed_at_once_from_two_stores_all_land(
        two_stores: tuple[PostgresKnowledgeStore, PostgresKnowledgeStore]) -> None:
    files = {f"/data/{i}.md": TEXT.replace(b"Tuesday", f"day {i}".encode())
             for i in range(12)}
    # Each worker gathers its ready documents into group commits (ADR-0041): the
    # workers' commits meet, each holding some of the twelve.
    meeting = Rendezvous(len(two_stores))
    workers = [worker(store, files, meeting) for store in two_stores]
    async with anyio.create_task_group() as tasks:
        for n, path in enumerate(files):
            tasks.start_soon(workers[n % 2].ingest, path)
    documents, versions, sources, _ = await counts(two_stores[0])
    assert (documents, versions, sources) == (12, 12, 12)


async def test_a_version_replayed_after_it_was_stored_is_skipped_not_doubled(
        two_stores: tuple[PostgresKnowledgeStore, PostgresKnowledgeStore]) -> None:
    """A killed worker's job retried after the first try did commit: the same bundle
    again changes nothing (ids, chunks and vectors stay single)."""
    first = worker(two_stores[0], {"/data/heron.md": TEXT}, Rendezvous(1))
    stored = await first.ingest("/data/heron.md")
    before = await counts(two_stores[0])
    document = await two_stores[0].catalogue.find("default", "/data/heron.md")
    assert document is not None
    replay = worker(two_stores[1], {"/data/heron.md": TEXT}, Rendezvous(1))
    assert (await replay.ingest("/data/heron.md")).status is IngestStatus.UNCHANGED
    # The bundle the first try committed, committed again by a retry that read the
    # store before that commit landed.
    store = two_stores[1]
    chunks = await store.catalogue.chunks("default", document.current.id)
    source = document.sources[0]
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(document.current, SourceRef(
            source.kind, source.key, source.original), None, chunks))
        await work.commit()
    assert await counts(two_stores[0]) == before
    assert stored.version_id == document.current.id
    # Other bytes under the same version id are refused, naming why.
    changed = attrs.evolve(document.current, fetched_sha="0" * 64)
    with pytest.raises(SheafError) as caught:
        async with store.storage().unit_of_work() as work:
            work.versions.add(VersionBundle(changed, SourceRef(
                source.kind, source.key, source.original), None, chunks))
            await work.commit()
    assert caught.value.kind is ErrorKind.STORAGE and "another process" in caught.value.message
    assert await counts(two_stores[0]) == before
