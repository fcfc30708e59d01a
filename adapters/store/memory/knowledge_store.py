"""The in-memory knowledge store: what it holds (`state`) read and written through one
port implementation each (`catalogue`, `search_index`, `unit_of_work`,
`space_policies`, `answer_cache`, `held_blobs`), handed out here."""

from __future__ import annotations

from ....application.store.storage import Storage
from ..buffered_unit_of_work import Step
from .answer_cache import MemoryAnswerCache
from .catalogue import MemoryCatalogue
from .held_blobs import MemoryHeldBlobs
from .search_index import MemorySearchIndex
from .space_policies import MemorySpacePolicies
from .state import CommittedState, MemoryState
from .unit_of_work import MemoryUnitOfWork


class MemoryKnowledgeStore:
    """Keeps everything in process memory; for tests and throwaway runs. Its ports are
    `storage()`, and its attributes `catalogue`, `index`, `policies`, `answers` and
    `held_blobs`; `committed` is the state they share. It holds blobs of up to
    `held_blob_bytes` itself, as the DuckDB store does (0, the default: none, so every
    blob reaches the blob store a test hands it)."""

    def __init__(self, held_blob_bytes: int = 0) -> None:
        self.committed = CommittedState()
        self.catalogue = MemoryCatalogue(self.committed)
        self.index = MemorySearchIndex(self.committed)
        self.policies = MemorySpacePolicies()
        self.answers = MemoryAnswerCache()
        self.held_blobs = MemoryHeldBlobs(self.committed)
        self.held_blob_bytes = held_blob_bytes

    def storage(self) -> Storage:
        return Storage(lambda: MemoryUnitOfWork(self.committed, self.apply), self.catalogue,
                       self.index, self.policies, self.answers, self.aclose,
                       held_blobs=self.held_blobs if self.held_blob_bytes else None,
                       held_blob_bytes=self.held_blob_bytes)

    async def apply(self, steps: list[Step[MemoryState]]) -> None:
        """Commit a unit of work's steps, all or none (where a test makes a commit fail
        or watches each one)."""
        await self.committed.apply(steps)

    async def aclose(self) -> None:
        return None
