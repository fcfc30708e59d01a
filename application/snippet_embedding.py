"""Embedding a version's snippets, as ingestion, reindexing and enrichment all do."""

from __future__ import annotations

from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.search_index import SearchIndex
from sheaf.domain.chunking import Chunk
from sheaf.domain.embeddings import ChunkVectors, EmbeddingModel


def wants_vectors(model: EmbeddingModel | None, stored: EmbeddingModel | None) -> bool:
    """Whether snippets are embedded with `model` as they are written, in a space whose
    vectors are of `stored`: always with a semantic model; with a lexical one (hashing)
    only where the space holds vectors already (`reindex --embeddings` stores them).
    `auto` search ranks by BM25 alone with a lexical embedder, and on CISI its vectors
    cost 0.10 nDCG@10 when fused: computing and storing them for nothing slowed every
    ingest (ADR-0021)."""
    return model is not None and (not model.lexical or stored is not None)


async def embed_snippets(embedder: Embedder | None, index: SearchIndex | None, space: str,
                         chunks: tuple[Chunk, ...], *, check_limit: bool = False
                         ) -> ChunkVectors | None:
    """The vectors of a version's snippets, or None without an embedder or where the
    space does not want them (`wants_vectors`). A space keeps one model: an embedder of
    another is refused before any work is done. `check_limit`
    refuses snippets longer than the model reads: needed for chunks cut for another
    embedder, not for chunks just cut with this one's counting."""
    if embedder is None:
        return None
    model = await embedder.model()
    if index is not None:  # None: re-embedding, this model replaces the space's
        stored = await index.embedding_model(space)
        model.require_same(stored, space)
        if not wants_vectors(model, stored):
            return None
    snippets = [c for c in chunks if c.level == "snippet"]
    if check_limit:
        # A generated context may lengthen a snippet past the limit; its own text may not.
        counting = await embedder.token_counting()
        counting.require_within_limit([c.retrieval_text for c in snippets if not c.context],
                                      model.name)
    vectors = await embedder.embed([c.retrieval_text for c in snippets]) if snippets else []
    return ChunkVectors(model, tuple(c.id for c in snippets), tuple(vectors))
