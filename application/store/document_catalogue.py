"""Reading and removing what is stored: lookups, Markdown, removal with blob collection."""

from __future__ import annotations

from collections.abc import Iterable

from ...domain.errors import ErrorKind, SheafError
from ...domain.store.document_pages import DocumentPage, PageCursor, page_of, page_size
from ...domain.store.knowledge_records import DocumentRecord, StoreStatus
from ..ports.artifact_store import ArtifactStore
from ..ports.blob_store import BlobStore
from .blob_guard import blob_guard
from .staging import stage_prefix
from .storage import Storage


class DocumentCatalogue:
    """The store's documents by any of their names, and their stored text."""

    def __init__(self, storage: Storage, blobs: BlobStore,
                 artifacts: ArtifactStore | None = None) -> None:
        self.storage = storage
        self._blobs = blobs
        self._artifacts = artifacts

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
        the staged artifacts of each of its sources."""
        document = await self.get(space, reference)
        async with self.storage.unit_of_work() as work:
            work.versions.remove(space, document.id)
            await work.commit()
        held = {sha for v in document.versions
                for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        async with blob_guard(self._blobs).collecting():
            for sha in sorted(await self.storage.catalogue.unreferenced(held)):
                await self._blobs.delete(sha)
        if self._artifacts is not None:
            for source in document.sources:
                await self._artifacts.delete_under(stage_prefix(space, source.key))
        return document

    async def status(self) -> StoreStatus:
        return await self.storage.catalogue.status()
