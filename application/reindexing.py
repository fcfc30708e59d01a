"""Rebuilding derived data (chunks, vectors, enrichment) from what is stored, without
fetching."""

from __future__ import annotations

from collections.abc import Callable

from sheaf.application.document_structure import DocumentStructure
from sheaf.application.enrichment import Enrichment
from sheaf.application.ports.embedder import Embedder
from sheaf.application.ports.knowledge_store import KnowledgeStore
from sheaf.application.snippet_embedding import embed_snippets
from sheaf.domain.enrichment import EnrichmentKind, with_context
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.token_counting import ESTIMATED_TOKENS


class Reindexing:
    """Recomputes every document's chunks from its stored Markdown and blocks, after a
    change to the chunking rules; re-embeds snippets after a change of embedder; redoes
    enrichment after a change of prompt or model. Each document's rows are replaced
    atomically."""

    def __init__(self, store: KnowledgeStore, structure: DocumentStructure,
                 embedder: Embedder | None = None,
                 enrichment: Enrichment | None = None) -> None:
        self._store = store
        self._structure = structure
        self._embedder = embedder
        self._enrichment = enrichment

    async def reindex(self, space: str, *, chunks: bool = True, embeddings: bool = False,
                      enrich: frozenset[EnrichmentKind] = frozenset(),
                      progress: Callable[[int, int], None] | None = None) -> int:
        """Return how many documents were reindexed. `embeddings` re-embeds every snippet
        with the configured embedder, which becomes the space's model. `enrich` redoes
        those enrichments: cached answers (same prompt version, model and text) cost
        nothing. `progress` hears (done, total) after each document."""
        embedder = self._embedder
        if embeddings:
            if embedder is None:
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 "no embedder is configured to re-embed with")
            await self._store.reset_vectors(space, await embedder.model())
        if enrich and self._enrichment is None:
            raise SheafError(ErrorKind.INVALID_QUERY, "no language model is configured to "
                                                      "enrich with (SHEAF_LLM_BASE_URL)")
        counting = await embedder.token_counting() if embedder else ESTIMATED_TOKENS
        count = 0
        documents = await self._store.documents(space)
        for document in documents:
            version_id = document.current.id
            if chunks:
                stored = {c.id: c for c in await self._store.chunks(space, version_id)}
                loaded = await self._structure.load(space, document.id)
                # A generated context stays with a chunk whose text did not change.
                rebuilt = tuple(
                    with_context(c, old.context) if (old := stored.get(c.id)) is not None
                    and old.text == c.text and old.context else c
                    for c in loaded.chunks(count=counting.count, input_limit=counting.limit))
                await self._store.replace_chunks(space, version_id, rebuilt)
            if embeddings or (chunks and embedder is not None
                              and await self._store.embedding_model(space)
                              in (None, await embedder.model())):
                vectors = await embed_snippets(embedder, self._store, space, version_id,
                                               await self._store.chunks(space, version_id))
                if vectors is not None:
                    await self._store.replace_vectors(space, version_id, vectors)
            if enrich and self._enrichment is not None:
                await self._enrichment.enrich(space, document.id, enrich)
            count += 1
            if progress is not None:
                progress(count, len(documents))
        return count
