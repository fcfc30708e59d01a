"""The write side of the store: repositories whose changes land together when the use
case commits, or not at all."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from ...domain.store.ingestion import SourceRef
from ...domain.store.knowledge_records import SourceRecord

if TYPE_CHECKING:  # annotations only: opening the store need not import chunking
    from ...domain.analysis.chunking import Chunk
    from ...domain.search.embeddings import ChunkVectors, EmbeddingModel
    from ...domain.store.document_analysis import StoredStructure
    from ...domain.store.version_bundle import VersionBundle


class SourceRepository(Protocol):
    """The sources (URLs, files) documents are known by."""

    async def get(self, space: str, key: str) -> SourceRecord | None:
        """The document a source key points to, with the bytes it last gave."""
        ...

    async def holding(self, space: str, sha256: str) -> str | None:
        """The id of a document in `space` whose current version came from these bytes."""
        ...

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        """Record another source (an alias) of an existing document."""
        ...

    def touch(self, space: str, key: str) -> None:
        """Note that a source was seen again with the same bytes."""
        ...


class VersionRepository(Protocol):
    """Documents and their versions."""

    async def latest_number(self, space: str, document_id: str) -> int:
        """The number of the document's newest version; 0 for an unknown document."""
        ...

    def add(self, bundle: VersionBundle) -> None:
        """Store a new current version with all it yields (superseding the previous one),
        and point its source at it. Vectors of another model than the space's are
        refused at commit."""
        ...

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        """Set a stored version's generated summary (when given) and add diagnostics."""
        ...

    def save_structure(self, space: str, version_id: str,
                       structure: StoredStructure) -> None:
        """Keep a version's sections and profile (a version stored before they were)."""
        ...

    def remove(self, space: str, document_id: str) -> None:
        """Remove a document with its versions, chunks, vectors and sources."""
        ...


class ChunkRepository(Protocol):
    """A version's chunks and their vectors."""

    def replace(self, space: str, version_id: str, chunks: tuple[Chunk, ...],
                vectors: ChunkVectors | None) -> None:
        """Replace a version's chunks and their vectors together (`document_not_found`
        at commit for a version the space does not hold)."""
        ...

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        ...

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        """Drop the space's vectors and make `model` its embedding model (re-embedding)."""
        ...


class UnitOfWork(Protocol):
    """`async with storage.unit_of_work() as uow:` ... `await uow.commit()`. Changes are
    applied in one transaction at `commit`; leaving the block without committing, or
    through an exception, discards them."""

    sources: SourceRepository
    versions: VersionRepository
    chunks: ChunkRepository

    async def __aenter__(self) -> UnitOfWork:
        ...

    async def __aexit__(self, kind: type[BaseException] | None,
                        error: BaseException | None, trace: TracebackType | None) -> None:
        ...

    async def commit(self) -> None:
        ...

    async def rollback(self) -> None:
        ...
