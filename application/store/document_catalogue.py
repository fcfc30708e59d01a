"""Reading and removing what is stored: lookups, Markdown, removal with blob collection."""

from __future__ import annotations

from collections.abc import Iterable

from ...domain.errors import ErrorKind, SheafError
from ...domain.store.document_pages import DocumentPage, PageCursor, page_of, page_size
from ...domain.store.knowledge_records import DocumentRecord, StoreStatus
from ...domain.store.pending_removal import PendingRemoval
from ..ports.artifact_store import ArtifactStore
from ..ports.blob_listing import BlobListing
from ..ports.blob_store import BlobStore
from .blob_guard import blob_guard
from .fault_points import FaultPoint, no_fault
from .held_first_blobs import blobs_of
from .removal_journal import RemovalJournal
from .staging import stage_prefix
from .storage import Storage


class DocumentCatalogue:
    """The store's documents by any of their names, and their stored text."""

    def __init__(self, storage: Storage, blobs: BlobStore,
                 artifacts: ArtifactStore | None = None, *,
                 fault_point: FaultPoint | None = None) -> None:
        self.storage = storage
        self._blobs = blobs_of(storage, blobs)
        self._artifacts = artifacts
        self._journal = RemovalJournal(artifacts) if artifacts is not None else None
        self._fault_point = fault_point or no_fault

    async def get(self, space: str, reference: str) -> DocumentRecord:
        """A document by id, URL, path or caller source id; `document_not_found` if none."""
        document = await self.storage.catalogue.find(space, reference)
        if document is None:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND,
                             f"no document {reference!r} in space {space!r}")
        return document

    async def document_ids(self, space: str, references: Iterable[str]) -> frozenset[str]:
        """The ids of documents named by id, URL, path or source id (search filters take
        ids); `document_not_found` for the first that names none."""
        return frozenset([(await self.get(space, reference)).id for reference in references])

    async def markdown(self, document: DocumentRecord) -> str:
        return (await self._blobs.get(document.current.markdown_sha)).decode("utf-8")

    async def list(self, space: str) -> list[DocumentRecord]:
        return await self.storage.catalogue.documents(space)

    async def page(self, space: str, limit: int | None = None, cursor: str | None = None
                   ) -> DocumentPage:
        """`limit` documents (DEFAULT_PAGE when None) after the page `cursor` ended;
        `invalid_query` for a size out of range or a cursor no page gave."""
        size = page_size(limit)
        after = PageCursor.decode(cursor) if cursor else None
        # One past the page: a full last page then says it is the last.
        return page_of(await self.storage.catalogue.documents_after(space, after, size + 1),
                       size)

    async def remove(self, space: str, reference: str) -> DocumentRecord:
        """Remove a document, its versions and sources, the blobs nothing else uses, and
        the staged artifacts of each of its sources. The removal is journaled before the
        database forgets the document, so one killed half-way is finished by the next
        process to open the store (`finish_removals`)."""
        document = await self.get(space, reference)
        removal = PendingRemoval(
            space, document.id,
            tuple(sorted({sha for v in document.versions
                          for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)})),
            tuple(sorted({stage_prefix(space, s.key) for s in document.sources})))
        if self._journal is not None:
            await self._journal.add(removal)
        async with self.storage.unit_of_work() as work:
            work.versions.remove(space, document.id)
            await work.commit()
        await self._fault_point("remove-committed")
        await self._collect(removal)
        return document

    async def _collect(self, removal: PendingRemoval) -> None:
        """Delete what a committed removal leaves: the blobs it held that no version
        references, its staged artifacts; then cross it out of the journal."""
        async with blob_guard(self._blobs).collecting():
            for sha in sorted(await self.storage.catalogue.unreferenced(removal.blobs)):
                await self._blobs.delete(sha)
        if self._artifacts is not None:
            for prefix in removal.artifact_prefixes:
                await self._artifacts.delete_under(prefix)
        if self._journal is not None:
            await self._journal.done(removal)

    async def finish_removals(self) -> int:
        """Finish every journaled removal a killed process left: collected when its
        document is gone from the database, dropped from the journal when it is still
        there (the kill came before the commit, and nothing was deleted). Returns how
        many were finished."""
        if self._journal is None:
            return 0
        finished = 0
        for removal in await self._journal.pending():
            if await self.storage.catalogue.find(removal.space, removal.document_id):
                await self._journal.done(removal)
                continue
            await self._collect(removal)
            finished += 1
        return finished

    async def sweep_blobs(self) -> int | None:
        """Delete every blob no version references (left by a process killed between its
        blob writes and its commit, or by a removal killed before removals were
        journaled), while no ingest of this process is between the two; how many went,
        or None when the blob store cannot list its blobs."""
        if not isinstance(self._blobs, BlobListing):
            return None
        deleted = 0
        async with blob_guard(self._blobs).collecting():
            stored = await self._blobs.stored_digests()
            for sha in sorted(await self.storage.catalogue.unreferenced(stored)):
                await self._blobs.delete(sha)
                deleted += 1
        return deleted

    async def status(self) -> StoreStatus:
        return await self.storage.catalogue.status()
