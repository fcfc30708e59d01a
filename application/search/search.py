"""Search over stored snippets: BM25, vectors or both fused, with what an agent needs to
cite each hit and re-anchor it with `quote`."""

from __future__ import annotations

import attrs

from ...domain.analysis.chunking import Chunk
from ...domain.document.document_location import DocumentLocation
from ...domain.document.extraction_confidence import ExtractionConfidence
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.rank_fusion import RRF_K, reciprocal_rank_fusion
from ...domain.search.search_request import (
    MAX_RESULTS,
    NO_FILTERS,
    Expansion,
    SearchFilters,
    SearchMode,
)
from ..concurrency.concurrent_pair import both
from ..ports.embedder import Embedder
from ..store.document_structure import DocumentStructure, StructuredDocument
from ..store.storage import Storage

CANDIDATES = 100
"""How deep each ranking goes before fusion: RRF needs more than the k finally shown."""
KEPT_QUERY_VECTORS = 256
"""Query embeddings kept per search (by model and text): an agent often repeats a query,
and embedding one on CPU costs more than ranking it (ADR-0040)."""


@attrs.frozen
class ExpandedContext:
    """Text around a hit, an exact span of the document's canonical text."""

    kind: str
    start: int
    end: int
    text: str
    heading_path: tuple[str, ...] = ()


@attrs.frozen
class SearchHit:
    """A snippet with its scores, span, section and document."""

    chunk: Chunk
    score: float
    document_id: str
    title: str | None = None
    url: str | None = None
    location: DocumentLocation | None = None
    """Where the document came from (URL, local path and `file:` URI, upload name)."""
    bm25_score: float | None = None
    vector_score: float | None = None
    context: ExpandedContext | None = None
    extraction_confidence: ExtractionConfidence | None = None
    """How far the extractor trusted its choice of the document's main content (HTML
    pages): a low one means the hit may come from a page's chrome, not its article."""

    @property
    def text(self) -> str:
        """The snippet's own words, exactly as the document has them."""
        return self.chunk.text

    # The snippet's place, by the names its JSON record gives them (`hit.start`, as
    # `hit["start"]` in `sheaf search --json`).
    @property
    def chunk_id(self) -> str:
        return self.chunk.id

    @property
    def start(self) -> int:
        """Where the snippet starts in the document's Markdown (a character offset)."""
        return self.chunk.start

    @property
    def end(self) -> int:
        """Where it ends: `markdown[hit.start:hit.end] == hit.text`."""
        return self.chunk.end

    @property
    def heading_path(self) -> tuple[str, ...]:
        return self.chunk.heading_path

    @property
    def section(self) -> str | None:
        """The label of the section it is in (abstract, methods, ...)."""
        return self.chunk.section_label

    @property
    def pages(self) -> tuple[int, ...]:
        return self.chunk.pages

    def as_dict(self) -> dict[str, object]:
        chunk = self.chunk
        found: dict[str, object] = {
            "document_id": self.document_id, "title": self.title, "url": self.url,
            "location": self.location.as_dict() if self.location else None,
            "score": round(self.score, 6),
            "bm25_score": None if self.bm25_score is None else round(self.bm25_score, 6),
            "vector_score": None if self.vector_score is None else round(self.vector_score, 6),
            "chunk_id": chunk.id, "start": chunk.start, "end": chunk.end, "text": chunk.text,
            "heading_path": list(chunk.heading_path), "section": chunk.section_label,
            "pages": list(chunk.pages)}
        if self.context is not None:
            found["context"] = attrs.asdict(self.context)
        if self.extraction_confidence is not None:
            found["extraction_confidence"] = self.extraction_confidence.as_dict()
        return found


def document_of_chunk(chunk_id: str) -> str:
    """`doc_x.v2:snippet:7` belongs to `doc_x`."""
    return version_of_chunk(chunk_id).rsplit(".v", 1)[0]


def version_of_chunk(chunk_id: str) -> str:
    return chunk_id.rsplit(":", 2)[0]


class Search:
    """Ranks current snippets of a space. `hybrid` fuses the BM25 and vector rankings by
    reciprocal rank; `auto` (the default) is hybrid with a semantic embedder and BM25
    otherwise."""

    def __init__(self, storage: Storage, embedder: Embedder | None = None,
                 structure: DocumentStructure | None = None) -> None:
        self._index = storage.index
        self._catalogue = storage.catalogue
        self.embedder = embedder
        self._structure = structure
        self._query_vectors: dict[tuple[str, str], tuple[float, ...]] = {}

    async def search(self, space: str, query: str, k: int = 10, *,
                     mode: SearchMode = SearchMode.AUTO,
                     filters: SearchFilters = NO_FILTERS,
                     group_by_document: bool = False,
                     expand: Expansion | None = None, window: int = 1,
                     rrf_k: int = RRF_K, with_documents: bool = True) -> list[SearchHit]:
        """The `k` best snippets (or, grouped, the best snippet of each of `k` documents)
        for `query`. `expand` adds the text around each hit; `window` is its N."""
        if not query.strip():
            raise SheafError(ErrorKind.INVALID_QUERY, "the query is empty")
        if not 1 <= k <= MAX_RESULTS:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"k must be between 1 and {MAX_RESULTS}, not {k}")
        if mode is SearchMode.AUTO:
            semantic = self.embedder is not None and not (await self.embedder.model()).lexical
            mode = SearchMode.HYBRID if semantic else SearchMode.BM25
        if mode is not SearchMode.BM25 and self.embedder is None:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"{mode.value} search needs an embedder; none is configured")
        depth = max(CANDIDATES, k) * (3 if group_by_document else 1)
        ranked, bm25, cosine = await self._ranked(space, query, mode, filters, depth, rrf_k)
        if group_by_document:  # best first, so a document's first snippet is its best
            firsts: dict[str, tuple[str, float]] = {}
            for chunk_id, score in ranked:
                firsts.setdefault(document_of_chunk(chunk_id), (chunk_id, score))
            ranked = list(firsts.values())
        ranked = ranked[:k]
        scores = dict(ranked)
        ids = [i for i, _ in ranked]
        if with_documents:  # the hits' documents are known from their ids: both at once
            documents = list(dict.fromkeys(document_of_chunk(i) for i in ids))
            chunks, cited = await both(self._index.snippets(space, ids),
                                       self._catalogue.citations(space, documents))
        else:
            chunks, cited = await self._index.snippets(space, ids), None
        hits = []
        for chunk in chunks:  # each hit made once, its document's citation with it
            document = document_of_chunk(chunk.id)
            citation = cited.get(document) if cited is not None else None
            hits.append(SearchHit(
                chunk, scores[chunk.id], document, bm25_score=bm25.get(chunk.id),
                vector_score=cosine.get(chunk.id),
                title=citation.title if citation else None,
                url=citation.url if citation else None,
                location=citation.location if citation else None,
                extraction_confidence=citation.extraction_confidence if citation else None))
        if expand is not None:
            hits = await self._expanded(space, hits, expand, window)
        return hits

    async def _ranked(self, space: str, query: str, mode: SearchMode,
                      filters: SearchFilters, depth: int, rrf_k: int
                      ) -> tuple[list[tuple[str, float]], dict[str, float], dict[str, float]]:
        """The fused or single ranking of snippet ids, with each ranking's own scores;
        hybrid's two rankings run at once when a semantic model embeds the query (most of its
        time)."""
        lexical: list[tuple[str, float]] = []
        semantic: list[tuple[str, float]] = []
        if mode is SearchMode.BM25:
            lexical = await self._index.search_text(space, query, depth, filters)
        elif mode is SearchMode.VECTOR:
            semantic = await self._semantic(space, query, mode, filters, depth)
        elif self.embedder is not None and (await self.embedder.model()).lexical:
            # A lexical embedder's query vector costs microseconds, and each ranking of a
            # held space a fraction of a millisecond: running them as two tasks cost
            # more than running one after the other.
            lexical = await self._index.search_text(space, query, depth, filters)
            semantic = await self._semantic(space, query, mode, filters, depth)
        else:
            lexical, semantic = await both(
                self._index.search_text(space, query, depth, filters),
                self._semantic(space, query, mode, filters, depth))
        bm25, cosine = dict(lexical), dict(semantic)
        if mode is SearchMode.BM25:
            return lexical, bm25, cosine
        if mode is SearchMode.VECTOR:
            return semantic, bm25, cosine
        fused = reciprocal_rank_fusion([[i for i, _ in lexical], [i for i, _ in semantic]],
                                       rrf_k)
        return fused, bm25, cosine

    async def _semantic(self, space: str, query: str, mode: SearchMode,
                        filters: SearchFilters, depth: int) -> list[tuple[str, float]]:
        """The vector ranking; empty while the space holds no vectors."""
        if self.embedder is None:
            return []
        stored = await self._index.embedding_model(space)
        model = await self.embedder.model()
        model.require_same(stored, space)
        if stored is None and model.lexical:
            raise SheafError(ErrorKind.INVALID_QUERY, (
                f"space {space!r} holds no vectors: a lexical embedder's ({model.name}) "
                "are not stored at ingest, since auto search ranks by BM25 with it; "
                f"`sheaf reindex --embeddings` stores them for {mode.value} search"))
        if stored is None:
            return []
        key = (model.name, query)
        vector = self._query_vectors.get(key)
        if vector is None:
            (vector,) = await self.embedder.embed([query])
            if len(self._query_vectors) >= KEPT_QUERY_VECTORS:
                del self._query_vectors[next(iter(self._query_vectors))]
            self._query_vectors[key] = vector
        return await self._index.search_vectors(space, model, vector, depth, filters)

    async def _expanded(self, space: str, hits: list[SearchHit], expand: Expansion,
                        window: int) -> list[SearchHit]:
        if self._structure is None:
            raise SheafError(ErrorKind.INVALID_QUERY, "context expansion is not configured")
        loaded: dict[str, StructuredDocument] = {}
        expanded = []
        for hit in hits:
            if hit.document_id not in loaded:
                loaded[hit.document_id] = await self._structure.load(space, hit.document_id)
            document = loaded[hit.document_id]
            if expand is Expansion.SNIPPET_WINDOW:
                context = await self._snippet_window(space, document, hit.chunk, window)
            else:
                context = _section_context(document, hit.chunk, expand, window)
            expanded.append(attrs.evolve(hit, context=context))
        return expanded

    async def _snippet_window(self, space: str, document: StructuredDocument, chunk: Chunk,
                              window: int) -> ExpandedContext:
        snippets = [c for c in await self._catalogue.chunks(space, version_of_chunk(chunk.id))
                    if c.level == "snippet"]
        at = next(i for i, c in enumerate(snippets) if c.id == chunk.id)
        first, last = snippets[max(0, at - window)], snippets[min(len(snippets) - 1,
                                                                  at + window)]
        return ExpandedContext(Expansion.SNIPPET_WINDOW.value, first.start, last.end,
                               document.text[first.start:last.end], chunk.heading_path)


def _section_context(document: StructuredDocument, chunk: Chunk, expand: Expansion,
                     window: int) -> ExpandedContext:
    """The innermost section holding the hit, or it with `window` sections either side at
    its level (siblings under the same parent)."""
    sections = document.sections
    holding = [s for s in sections if s.start <= chunk.start < s.end] or list(sections)
    if not holding:
        return ExpandedContext(expand.value, 0, len(document.text), document.text)
    section = max(holding, key=lambda s: (s.level, s.start))
    start, end = section.start, section.end
    if expand is Expansion.SECTION_NEIGHBOURHOOD:
        siblings = [s for s in sections if s.parent == section.parent]
        at = siblings.index(section)
        start = siblings[max(0, at - window)].start
        end = siblings[min(len(siblings) - 1, at + window)].end
    return ExpandedContext(expand.value, start, end, document.text[start:end], section.path)
