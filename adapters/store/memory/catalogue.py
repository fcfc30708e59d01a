"""The in-memory store's catalogue: documents by any of their names, their stored
structure and chunks, citations, the blobs nothing refers to, the store's counts."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ....domain.analysis.chunking import Chunk
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.document_pages import PageCursor, after, sort_key
from ....domain.store.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SpaceCount,
    StoreStatus,
)
from .state import CommittedState

SCHEMA_VERSION = 1


class MemoryCatalogue:
    """The read side of the committed state."""

    def __init__(self, committed: CommittedState) -> None:
        self._committed = committed

    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        state = self._committed.current
        if reference in state.versions and state.versions[reference][-1].space == space:
            return state.record(reference)
        for document_id, versions in state.versions.items():
            if versions[-1].space == space and (state.callers.get(document_id) == reference
                                                or any(reference in (s.key, s.original,
                                                                     s.final_url)
                                                       for s in state.sources_of(document_id))):
                return state.record(document_id)
        return None

    async def documents(self, space: str) -> list[DocumentRecord]:
        state = self._committed.current
        found = [state.record(d) for d, v in state.versions.items() if v[-1].space == space]
        return sorted(found, key=lambda d: d.updated_at or d.current.created_at, reverse=True)

    async def documents_after(self, space: str, cursor: PageCursor | None, limit: int
                              ) -> list[DocumentRecord]:
        state = self._committed.current
        found = [state.record(d) for d, v in state.versions.items() if v[-1].space == space]
        return sorted((d for d in found if after(d, cursor)), key=sort_key)[:limit]

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        return self._committed.current.structures.get(version_id)

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        return self._committed.current.chunks.get(version_id, ())

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        state = self._committed.current
        return {i: state.record(i).citation for i in document_ids
                if i in state.versions and state.versions[i][-1].space == space}

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        used = {sha for versions in self._committed.current.versions.values()
                for v in versions for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        return set(hashes) - used

    async def status(self) -> StoreStatus:
        state = self._committed.current
        spaces = sorted({v[-1].space for v in state.versions.values()})
        counts = tuple(SpaceCount(
            space, sum(1 for v in state.versions.values() if v[-1].space == space),
            sum(len(v) for v in state.versions.values() if v[-1].space == space),
            sum(1 for s in state.sources.values() if s.space == space)) for space in spaces)
        return StoreStatus("memory", SCHEMA_VERSION, counts, state.last_ingest)
