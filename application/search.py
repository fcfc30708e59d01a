"""Search over stored chunks, with what an agent needs to cite each hit."""

from __future__ import annotations

import attrs

from sheaf.application.ports.knowledge_store import KnowledgeStore
from sheaf.domain.chunking import Chunk


@attrs.frozen
class SearchHit:
    """A snippet with its score, span and document."""

    chunk: Chunk
    score: float
    document_id: str
    title: str | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, object]:
        chunk = self.chunk
        return {"document_id": self.document_id, "title": self.title, "url": self.url,
                "score": round(self.score, 6), "chunk_id": chunk.id, "start": chunk.start,
                "end": chunk.end, "text": chunk.text, "heading_path": list(chunk.heading_path),
                "section": chunk.section_label, "pages": list(chunk.pages)}


def document_of_chunk(chunk_id: str) -> str:
    """`doc_x.v2:snippet:7` belongs to `doc_x`."""
    version_id = chunk_id.rsplit(":", 2)[0]
    return version_id.rsplit(".v", 1)[0]


class Search:
    """BM25 over the retrieval text of current snippets (vector and hybrid modes come with
    the embedding issue)."""

    def __init__(self, store: KnowledgeStore) -> None:
        self._store = store

    async def search(self, space: str, query: str, k: int = 10, *,
                     with_documents: bool = True) -> list[SearchHit]:
        ranked = await self._store.search_text(space, query, k)
        hits = [SearchHit(chunk, score, document_of_chunk(chunk.id)) for chunk, score in ranked]
        if not with_documents:
            return hits
        documents = {}
        for document_id in dict.fromkeys(h.document_id for h in hits):
            documents[document_id] = await self._store.find(space, document_id)
        enriched = []
        for hit in hits:
            document = documents.get(hit.document_id)
            url = next((s.final_url or s.original for s in document.sources
                        if s.kind.value == "url"), None) if document else None
            enriched.append(attrs.evolve(hit, title=document.title if document else None,
                                         url=url))
        return enriched
