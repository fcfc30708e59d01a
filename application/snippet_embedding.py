"""Embedding a version's snippets, as ingestion, reindexing and enrichment all do."""

from __future__ import annotations

from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.search_index import SearchIndex
from sheaf.domain.chunking import Chunk
from sheaf.domain.embeddings import ChunkVectors


async def embed_snippets(embedder: Embedder | None, index: SearchIndex | None, space: str,
                         chunks: tuple[Chunk, ...], *, check_limit: bool = False
                         ) -> ChunkVectors | None:
    """The vectors of a version's snippets, or None without an embedder. A space keeps one
    model: an embedder of another is refused before any work is done. `check_limit`
    refuses snippets longer than the model reads: needed for chunks cut for another
    embedder, not for chunks just cut with this one's counting."""
    if embedder is None:
        return None
    model = await embedder.model()
    if index is not None:  # None: re-embedding, this model replaces the space's
        model.require_same(await index.embedding_model(space), space)
    snippets = [c for c in chunks if c.level == "snippet"]
    if check_limit:
        # A generated context may lengthen a snippet past the limit; its own text may not.
        counting = await embedder.token_counting()
        counting.require_within_limit([c.retrieval_text for c in snippets if not c.context],
                                      model.name)
    vectors = await embedder.embed([c.retrieval_text for c in snippets]) if snippets else []
    return ChunkVectors(model, tuple(c.id for c in snippets), tuple(vectors))
