"""The read side of the store: documents by any name, their stored structure and chunks,
and citations for many hits at once."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Protocol

from ...domain.store.document_pages import PageCursor
from ...domain.store.knowledge_records import DocumentCitation, DocumentRecord, StoreStatus

if TYPE_CHECKING:  # annotations only: opening the store need not import chunking
    from ...domain.analysis.chunking import Chunk
    from ...domain.store.document_analysis import StoredStructure


class Catalogue(Protocol):
    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        """A document by id, caller source id, any of its URLs or a file path."""
        ...

    async def documents(self, space: str) -> list[DocumentRecord]:
        """Every document of a space, newest first."""
        ...

    async def documents_after(self, space: str, cursor: PageCursor | None, limit: int
                              ) -> list[DocumentRecord]:
        """Up to `limit` documents of a space after `cursor` (from the first when None),
        newest change first, then by id (`document_pages`): each read through an index,
        whatever the space's size."""
        ...

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        """A version's stored sections and profile (None for a version stored before
        they were kept)."""
        ...

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        """A version's stored chunks, section chunks and snippets in document order."""
        ...

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        """The citation of each of these documents found in `space`, in one query
        whatever their number (unknown ids are left out)."""
        ...

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        """Those of these content hashes no stored version refers to (blobs that can go)."""
        ...

    async def status(self) -> StoreStatus:
        ...
