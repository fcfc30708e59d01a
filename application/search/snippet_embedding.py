"""Embedding a version's snippets, as ingestion, reindexing and enrichment all do."""

from __future__ import annotations

from ...domain.analysis.chunking import Chunk
from ...domain.search.embeddings import ChunkVectors, EmbeddingModel
from ..ports.embedder import Embedder
from ..ports.search_index import SearchIndex


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
    another is refused before any work is done. `check_limit` refuses snippets longer
    than the model reads: needed for chunks cut for another embedder, not for chunks
    just cut with this one's counting."""
    (vectors,) = await embed_versions(embedder, index, space, [chunks],
                                      check_limit=check_limit)
    return vectors


async def embed_versions(embedder: Embedder | None, index: SearchIndex | None, space: str,
                         versions: list[tuple[Chunk, ...]], *, check_limit: bool = False
                         ) -> list[ChunkVectors | None]:
    """`embed_snippets` for several versions at once: their snippets go to the embedder
    in one batch (a model server or a local model embeds a long batch much faster than
    many short ones), and come back split per version."""
    if embedder is None:
        return [None] * len(versions)
    model = await embedder.model()
    if index is not None:  # None: re-embedding, this model replaces the space's
        stored = await index.embedding_model(space)
        model.require_same(stored, space)
        if not wants_vectors(model, stored):
            return [None] * len(versions)
    snippets = [[c for c in chunks if c.level == "snippet"] for chunks in versions]
    texts = [c.retrieval_text for version in snippets for c in version]
    if check_limit:
        # A generated context may lengthen a snippet past the limit; its own text may not.
        counting = await embedder.token_counting()
        counting.require_within_limit([c.retrieval_text for version in snippets
                                       for c in version if not c.context], model.name)
    vectors = await embedder.embed(texts) if texts else []
    found: list[ChunkVectors | None] = []
    at = 0
    for version in snippets:
        found.append(ChunkVectors(model, tuple(c.id for c in version),
                                  tuple(vectors[at:at + len(version)])))
        at += len(version)
    return found
