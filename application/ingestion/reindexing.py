"""Rebuilding derived data (chunks, vectors, enrichment) from what is stored, without
fetching."""

from __future__ import annotations

from collections.abc import Callable

from ...domain.analysis.token_counting import ESTIMATED_TOKENS
from ...domain.enrichment.enrichment import EnrichmentKind, with_context
from ...domain.errors import ErrorKind, SheafError
from ...domain.store.knowledge_records import DocumentRecord
from ..enrichment.enrichment import Enrichment
from ..ports.embedder import Embedder
from ..search.snippet_embedding import embed_versions, wants_vectors
from ..store.document_structure import DocumentStructure
from ..store.storage import Storage


class Reindexing:
    """Recomputes every document's chunks from its stored Markdown, blocks and sections
    (cut to the sizes the version was cut to), after a change to the chunking rules;
    re-embeds snippets after a change of embedder; redoes enrichment after a change of
    prompt or model. A document's chunks and vectors are replaced in one write, so a
    search never sees its chunks without their vectors."""

    def __init__(self, storage: Storage, structure: DocumentStructure,
                 embedder: Embedder | None = None,
                 enrichment: Enrichment | None = None) -> None:
        self._storage = storage
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
        storage = self._storage
        if embeddings and embedder is None:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             "no embedder is configured to re-embed with")
        if enrich and self._enrichment is None:
            raise SheafError(ErrorKind.INVALID_QUERY, "no language model is configured to "
                                                      "enrich with (SHEAF_LLM_BASE_URL)")
        counting = await embedder.token_counting() if embedder else ESTIMATED_TOKENS
        model = await embedder.model() if embedder else None
        reset = embeddings  # the space's model changes with the first document's write
        count = written = 0
        documents = await storage.catalogue.documents(space)
        for batch in _batches(documents):
            planned = []
            for document in batch:
                version_id = document.current.id
                stored = await storage.catalogue.chunks(space, version_id)
                current = stored
                if chunks:
                    by_id = {c.id: c for c in stored}
                    loaded = await self._structure.load(space, document.id)
                    # A generated context stays with a chunk whose text did not change.
                    current = tuple(
                        with_context(c, old.context) if (old := by_id.get(c.id)) is not None
                        and old.text == c.text and old.context else c
                        for c in loaded.chunks(count=counting.count,
                                               input_limit=counting.limit))
                stored_model = await storage.index.embedding_model(space)
                if not embeddings and current == stored and (
                        stored_model == model or not wants_vectors(model, stored_model)):
                    # Nothing would change: writing it anyway left the old rows' space
                    # in the file (the store grew on every reindex without a change).
                    embed = write = False
                else:
                    embed = embedder is not None and (embeddings or (
                        chunks and wants_vectors(model, stored_model)))
                    write = True
                planned.append((document, current, embed, write))
            # Stored chunks were cut for whichever embedder came before: checked. A new
            # model replaces the space's with the first write: not checked against it.
            embedded = iter(await embed_versions(
                embedder, None if reset else storage.index, space,
                [current for _, current, embed, _ in planned if embed],
                check_limit=not chunks))
            for document, current, embed, write in planned:
                vectors = next(embedded) if embed else None
                if write:
                    async with storage.unit_of_work() as work:
                        if reset and model is not None:
                            work.chunks.reset_vectors(space, model)
                            reset = False
                        if chunks:
                            work.chunks.replace(space, document.current.id, current, vectors)
                        elif vectors is not None:
                            work.chunks.replace_vectors(space, document.current.id, vectors)
                        await work.commit()
                    written += 1
                if enrich and self._enrichment is not None:
                    await self._enrichment.enrich(space, document.id, enrich)
                count += 1
                if progress is not None:
                    progress(count, len(documents))
        if written and storage.compact is not None:
            # Every rewritten row left its old copy behind: give the space back now.
            await storage.compact()
        return count



EMBEDDING_BATCH = 256
"""Snippets sent to the embedder at once by a reindex (several documents' together)."""


def _batches(documents: list[DocumentRecord]) -> list[list[DocumentRecord]]:
    """Consecutive documents, about `EMBEDDING_BATCH` snippets' worth each (by the
    characters of their current version: the chunks are not read yet)."""
    batches: list[list[DocumentRecord]] = [[]]
    size = 0
    for document in documents:
        if batches[-1] and size >= EMBEDDING_BATCH * _SNIPPET_CHARACTERS:
            batches.append([])
            size = 0
        batches[-1].append(document)
        size += document.current.characters
    return [batch for batch in batches if batch]


_SNIPPET_CHARACTERS = 1000
"""About what one snippet holds (some 250 tokens)."""
