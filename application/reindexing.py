"""Rebuilding derived data (chunks) from what is stored, without fetching anything."""

from __future__ import annotations

from sheaf.application.document_structure import DocumentStructure
from sheaf.application.ports.knowledge_store import KnowledgeStore


class Reindexing:
    """Recomputes every document's chunks from its stored Markdown and blocks, after a
    change to the chunking rules; each document's chunks are replaced atomically."""

    def __init__(self, store: KnowledgeStore, structure: DocumentStructure) -> None:
        self._store = store
        self._structure = structure

    async def reindex(self, space: str) -> int:
        """Return how many documents were reindexed."""
        count = 0
        for document in await self._store.documents(space):
            loaded = await self._structure.load(space, document.id)
            await self._store.replace_chunks(space, document.current.id, loaded.chunks())
            count += 1
        return count
