"""Rebuilding derived data (chunks, vectors) from what is stored, without fetching."""

from __future__ import annotations

from sheaf.application.document_structure import DocumentStructure
from sheaf.application.ingestion import embed_snippets
from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.knowledge_store import KnowledgeStore
from sheaf.domain.errors import ErrorKind, SheafError


class Reindexing:
    """Recomputes every document's chunks from its stored Markdown and blocks, after a
    change to the chunking rules, and re-embeds snippets after a change of embedder; each
    document's rows are replaced atomically."""

    def __init__(self, store: KnowledgeStore, structure: DocumentStructure,
                 embedder: Embedder | None = None) -> None:
        self._store = store
        self._structure = structure
        self._embedder = embedder

    async def reindex(self, space: str, *, chunks: bool = True,
                      embeddings: bool = False) -> int:
        """Return how many documents were reindexed. `embeddings` re-embeds every snippet
        with the configured embedder, which becomes the space's model."""
        embedder = self._embedder
        if embeddings:
            if embedder is None:
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 "no embedder is configured to re-embed with")
            await self._store.reset_vectors(space, await embedder.model())
        count = 0
        for document in await self._store.documents(space):
            version_id = document.current.id
            if chunks:
                loaded = await self._structure.load(space, document.id)
                await self._store.replace_chunks(space, version_id, loaded.chunks())
            if embeddings or (chunks and embedder is not None
                              and await self._store.embedding_model(space)
                              in (None, await embedder.model())):
                vectors = await embed_snippets(embedder, self._store, space, version_id,
                                               await self._store.chunks(space, version_id))
                if vectors is not None:
                    await self._store.replace_vectors(space, version_id, vectors)
            count += 1
        return count
