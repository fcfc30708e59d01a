"""Queued ingestion on fakes: a file enqueued on one machine is ingested by a worker that
cannot read it, keyed as a local ingest keys it, and a job run again (its worker killed
after or before the commit) stores nothing twice."""

from __future__ import annotations

import hashlib

import pytest

from sheaf import Knowledge
from sheaf.adapters.blobs.memory_blob_store import MemoryBlobStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.files.memory_file_reader import MemoryFileReader
from sheaf.adapters.queue.memory_job_queue import MemoryJobQueue
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.application.queue.queued_ingestion import QueuedIngestion
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.queue.ingest_jobs import IngestJob
from sheaf.domain.store.ingestion import IngestStatus
from sheaf.entrypoints.api.composition import InjectedAdapters

pytestmark = pytest.mark.anyio
FOX = b"# Foxes\n\nFoxes wait for people to sleep. Then they visit the bins.\n"
PAGE = ("<html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>Seagrass "
        "grew with the tides, and shoot density doubled in spring.</p></article></body>"
        "</html>")
TEMPLATE = IngestJob(batch="", source="", space="papers", metadata={"team": "field"})


class FlakyBlobs(MemoryBlobStore):
    """Refuses the next `failures` writes of bytes it does not hold yet (the Markdown:
    the raw bytes were stored when the job was enqueued), as a bucket briefly
    unreachable does."""

    failures = 0

    async def put(self, data: bytes, sha256: str | None = None) -> str:
        if self.failures and not await self.has(hashlib.sha256(data).hexdigest()):
            self.failures -= 1
            raise SheafError(ErrorKind.STORAGE, "the bucket did not answer")
        return await super().put(data, sha256)


def _http() -> MemoryHttpClient:
    http = MemoryHttpClient(HttpSettings())
    http.add("https://journal.example/tides", PAGE, content_type="text/html")
    return http


async def _enqueue(queue: MemoryJobQueue, blobs: MemoryBlobStore, sources: list[str]
                   ) -> str:
    here = MemoryFileReader({"/home/ana/notes/fox.md": FOX})
    queued = QueuedIngestion(queue, here, blobs, max_bytes=1 << 20)
    enqueued = await queued.enqueue(await queued.listing(sources), TEMPLATE)
    assert not enqueued.refused
    return enqueued.batch


async def test_a_queued_file_is_ingested_by_a_worker_that_cannot_read_it() -> None:
    queue, blobs, store = MemoryJobQueue(), MemoryBlobStore(), MemoryKnowledgeStore()
    batch = await _enqueue(queue, blobs, ["/home/ana/notes", "https://journal.example/tides"])
    elsewhere = InjectedAdapters(store=store, blobs=blobs, http_client=_http(),
                                 files=MemoryFileReader({}))  # the worker's machine
    async with Knowledge.open(embedder="none", adapters=elsewhere) as kb:
        await queue.work(kb.ingest_job, until_idle=True)
        summary = await queue.batch(batch)
        assert summary.outcomes["new"] == 2 and summary.finished
        fox = await kb.with_space("papers").record("/home/ana/notes/fox.md")
        assert fox.current.caller_metadata == {"team": "field"}
        assert (await kb.with_space("papers").document(fox.id)).markdown.startswith("# Foxes")
    # On the machine holding the file, a local ingest finds the very same source.
    local = InjectedAdapters(store=store, blobs=blobs,
                             files=MemoryFileReader({"/home/ana/notes/fox.md": FOX}))
    async with Knowledge.open(space="papers", embedder="none", adapters=local) as kb:
        again = await kb.ingest("/home/ana/notes/fox.md")
        assert again.status is IngestStatus.UNCHANGED and again.document_id == fox.id


async def test_a_job_run_again_after_its_commit_stores_nothing_twice() -> None:
    queue, blobs, store = MemoryJobQueue(), MemoryBlobStore(), MemoryKnowledgeStore()
    batch = await _enqueue(queue, blobs, ["/home/ana/notes/fox.md",
                                          "https://journal.example/tides"])
    adapters = InjectedAdapters(store=store, blobs=blobs, http_client=_http(),
                                files=MemoryFileReader({}))
    async with Knowledge.open(embedder="none", adapters=adapters) as kb:
        await queue.work(kb.ingest_job, until_idle=True)
        for job in (await queue.batch(batch)).jobs:  # as if each worker died after commit
            rerun = await kb.ingest_job(IngestJob(batch, job.source, space="papers",
                                                  file=_file_of(queue, job.job_id)))
            assert rerun.status is IngestStatus.UNCHANGED
        documents = await kb.with_space("papers").documents()
    assert len(documents) == 2 and all(len(d.versions) == 1 for d in documents)


def _file_of(queue: MemoryJobQueue, job_id: int):  # type: ignore[no-untyped-def]
    return queue._entries[job_id].job.file


async def test_a_job_failing_before_its_commit_is_redone_once() -> None:
    queue, store = MemoryJobQueue(), MemoryKnowledgeStore()
    blobs = FlakyBlobs()
    batch = await _enqueue(queue, blobs, ["/home/ana/notes/fox.md"])
    blobs.failures = 1  # the worker's Markdown write fails once
    adapters = InjectedAdapters(store=store, blobs=blobs, files=MemoryFileReader({}))
    async with Knowledge.open(embedder="none", adapters=adapters) as kb:
        await queue.work(kb.ingest_job, until_idle=True)
        (job,) = (await queue.batch(batch)).jobs
        assert job.attempts == 2 and job.result is not None
        assert job.result.status is IngestStatus.NEW
        (document,) = await kb.with_space("papers").documents()
    assert len(document.versions) == 1


async def test_queued_bytes_gone_from_the_blob_store_fail_without_retrying() -> None:
    queue, blobs = MemoryJobQueue(), MemoryBlobStore()
    batch = await _enqueue(queue, blobs, ["/home/ana/notes/fox.md"])
    blobs.blobs.clear()
    adapters = InjectedAdapters(store=MemoryKnowledgeStore(), blobs=blobs,
                                files=MemoryFileReader({}))
    async with Knowledge.open(embedder="none", adapters=adapters) as kb:
        await queue.work(kb.ingest_job, until_idle=True)
    (failed,) = (await queue.batch(batch)).failures
    assert failed.attempts == 1 and failed.result is not None
    assert failed.result.error_kind == "input_not_found"
    assert "enqueue it again" in (failed.result.message or "")


async def test_files_that_cannot_be_read_are_refused_and_the_rest_enqueued() -> None:
    queue, blobs = MemoryJobQueue(), MemoryBlobStore()
    here = MemoryFileReader({"/n/fox.md": FOX, "/n/big.md": b"# Big\n\n" + b"x" * 2000})
    queued = QueuedIngestion(queue, here, blobs, max_bytes=1000)
    listing = await queued.listing(["/n/fox.md", "/n/big.md", "/n/gone.md"])
    enqueued = await queued.enqueue(listing, TEMPLATE)
    assert len(enqueued.job_ids) == 1
    assert {r.source: r.error_kind for r in enqueued.refused} == {
        "/n/big.md": "too_large", "/n/gone.md": "input_not_found"}
