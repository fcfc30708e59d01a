"""The knowledge store port: documents, versions, sources and blocks, per space."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sheaf.domain.chunking import Chunk
from sheaf.domain.document_analysis import StoredStructure
from sheaf.domain.embeddings import ChunkVectors, EmbeddingModel
from sheaf.domain.ingestion import SourceRef, SpacePolicy
from sheaf.domain.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SourceRecord,
    StoreStatus,
    VersionRecord,
)
from sheaf.domain.search_request import NO_FILTERS, SearchFilters


class KnowledgeStore(Protocol):
    """Keeps what ingestion produced. Every write is one transaction: after a crash the
    store holds the state before it or after it, never a version without its blocks."""

    async def source(self, space: str, key: str) -> SourceRecord | None:
        """The document a source key points to, with the bytes it last gave."""
        ...

    async def document_with_content(self, space: str, sha256: str) -> str | None:
        """The id of a document in `space` whose current version came from these bytes."""
        ...

    async def save_version(self, version: VersionRecord, source: SourceRef,
                           final_url: str | None = None,
                           caller_source_id: str | None = None,
                           chunks: tuple[Chunk, ...] = (),
                           vectors: ChunkVectors | None = None,
                           fingerprint: tuple[float, ...] | None = None,
                           structure: StoredStructure | None = None) -> None:
        """Store a new current version (superseding the previous one), replace the
        document's chunks with `chunks` and their vectors with `vectors`, keep the
        document's near-duplicate `fingerprint`, and point the source at it; all or
        nothing. Vectors of another model than the space's are refused."""
        ...

    async def replace_chunks(self, space: str, version_id: str,
                             chunks: tuple[Chunk, ...]) -> None:
        """Replace a version's chunks in one transaction (reindexing)."""
        ...

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        """A version's stored chunks, section chunks and snippets in document order."""
        ...

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        """A version's stored sections and profile (None for a version stored before
        they were kept)."""
        ...

    async def save_structure(self, space: str, version_id: str,
                             structure: StoredStructure) -> None:
        ...

    async def add_source(self, space: str, document_id: str, source: SourceRef,
                         fetched_sha: str, final_url: str | None = None) -> None:
        """Record another source (an alias) of an existing document."""
        ...

    async def touch_source(self, space: str, key: str) -> None:
        """Note that a source was seen again with the same bytes."""
        ...

    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        """A document by id, caller source id, any of its URLs or a file path."""
        ...

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        """The citation of each of these documents found in `space`, in one query
        whatever their number (unknown ids are left out)."""
        ...

    async def documents(self, space: str) -> list[DocumentRecord]:
        """Every document of a space, newest first."""
        ...

    async def remove(self, space: str, document_id: str) -> set[str]:
        """Remove a document with its versions, blocks and sources; return the content
        hashes no longer referenced anywhere (their blobs can go)."""
        ...

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        """Ids of current snippets with their BM25 score over the retrieval text, best
        first (ids only: ranking stays light; `snippets` fetches the winners)."""
        ...

    async def snippets(self, space: str, chunk_ids: list[str]) -> list[Chunk]:
        """The chunks with these ids, in the order given; unknown ids are left out."""
        ...

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        """Ids of current snippets with their cosine similarity to `vector`, best first.
        Refused when the space's vectors come from another model."""
        ...

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        """The model of the space's vectors, or None before any were stored."""
        ...

    async def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        """Drop the space's vectors and make `model` its embedding model (re-embedding)."""
        ...

    async def replace_vectors(self, space: str, version_id: str,
                              vectors: ChunkVectors) -> None:
        """Replace one version's vectors in one transaction."""
        ...

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        """Documents whose fingerprint has a cosine of at least `threshold` with this
        one, most similar first."""
        ...

    async def save_enrichment(self, space: str, version_id: str,
                              summary: dict[str, object] | None,
                              chunks: tuple[Chunk, ...] | None,
                              vectors: ChunkVectors | None,
                              diagnostics: tuple[str, ...]) -> None:
        """In one transaction: set the version's generated summary (when given), replace
        its chunks and vectors (when given), and add diagnostics."""
        ...

    async def cached_text(self, key: str) -> str | None:
        """A model answer kept under `key` (prompt version, model, input hash)."""
        ...

    async def cache_text(self, key: str, value: str) -> None:
        ...

    async def policy(self, space: str) -> SpacePolicy:
        ...

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        ...

    async def status(self) -> StoreStatus:
        ...

    async def aclose(self) -> None:
        ...
