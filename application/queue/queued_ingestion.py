"""Ingestion through a durable queue: a batch enqueued here, its jobs run by workers
anywhere (ADR-0023).

Workers may run on other machines, so a local file is read where it was named and its
bytes go to the blob store first; the job carries their sha256 and the file's absolute
path, which stays the source's identity. A job run twice (its worker killed after the
commit, say) finds the same source with the same bytes: `unchanged`, nothing stored
again."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import cast

import attrs

from ...domain.enrichment.enrichment import parse_kinds
from ...domain.errors import SheafError
from ...domain.fetching.url_normalisation import is_url
from ...domain.queue.ingest_jobs import IngestJob, QueuedFile
from ...domain.routing.directory_listing import DirectoryListing, SkippedFile
from ...domain.store.ingestion import IngestResult, IngestStatus
from ..extraction.content_resolver import Preference
from ..ingestion.ingestion import IngestOptions, expand_listing
from ..ports.blob_store import BlobStore
from ..ports.file_reader import FileReader
from ..ports.job_queue import JobQueue

Ingest = Callable[[str, IngestOptions], Awaitable[IngestResult]]


@attrs.frozen
class EnqueuedBatch:
    """What `enqueue` put in the queue, and what it could not."""

    batch: str
    job_ids: tuple[int, ...]
    refused: tuple[IngestResult, ...] = ()
    """Files that could not be read where they were named (missing, too large)."""
    skipped: tuple[SkippedFile, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"batch": self.batch, "enqueued": len(self.job_ids),
                "refused": [r.as_dict() for r in self.refused],
                "skipped": [s.as_dict() for s in self.skipped]}


def job_options(job: IngestJob) -> IngestOptions:
    """The ingest options a job stands for."""
    return IngestOptions(space=job.space, metadata=dict(job.metadata), force=job.force,
                         resume=job.resume, password=job.password,
                         prefer=cast(Preference, job.prefer),  # checked by from_args
                         source_id=job.source_id, version_id=job.version_id,
                         enrich=parse_kinds(job.enrich) if job.enrich is not None else None,
                         queued_file=job.file)


async def run_job(ingest: Ingest, job: IngestJob) -> IngestResult:
    """One job through the ingest use case (failures come back as `failed` results)."""
    return await ingest(job.source, job_options(job))


class QueuedIngestion:
    """Enqueues batches: URLs as they are, files as bytes in the blob store."""

    def __init__(self, queue: JobQueue, files: FileReader, blobs: BlobStore, *,
                 max_bytes: int) -> None:
        self._queue = queue
        self._files = files
        self._blobs = blobs
        self._max_bytes = max_bytes

    async def listing(self, sources: Sequence[str], recursive: bool = False
                      ) -> DirectoryListing:
        """The sources with each directory replaced by the files under it sheaf reads."""
        return await expand_listing(self._files, list(sources), recursive)

    async def enqueue(self, listing: DirectoryListing, template: IngestJob
                      ) -> EnqueuedBatch:
        """One job per source of `listing`, each with `template`'s options, under a new
        batch id. Files are read and stored before anything is enqueued; a file that
        cannot be read is refused (reported, not enqueued), the rest go in as one."""
        batch = uuid.uuid4().hex[:16]
        jobs: list[IngestJob] = []
        refused: list[IngestResult] = []
        for source in listing.files:
            job = attrs.evolve(template, batch=batch, source=source)
            if not is_url(source):
                try:
                    local = await self._files.read(source, self._max_bytes)
                    sha = await self._blobs.put(local.data)
                except SheafError as exc:
                    refused.append(IngestResult(source, IngestStatus.FAILED,
                                                error_kind=exc.kind.value, message=str(exc)))
                    continue
                job = attrs.evolve(job, file=QueuedFile(local.path, sha, local.type_hint))
            jobs.append(job)
        ids = await self._queue.enqueue(jobs)
        return EnqueuedBatch(batch, ids, tuple(refused), listing.skipped)
