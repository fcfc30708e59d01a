"""What the in-memory store holds, in dictionaries, and the committed state every
port of one store reads: each commit replaces it whole, or leaves it as it was."""

from __future__ import annotations

import copy
from datetime import datetime

import attrs

from ....domain.analysis.chunking import Chunk
from ....domain.errors import ErrorKind, SheafError
from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.knowledge_records import DocumentRecord, SourceRecord, VersionRecord
from ..buffered_unit_of_work import Step


@attrs.define
class MemoryState:
    """Everything stored; a unit of work changes a copy it puts back on success."""

    versions: dict[str, list[VersionRecord]] = attrs.Factory(dict)  # document -> versions
    callers: dict[str, str] = attrs.Factory(dict)  # document -> caller source id
    created: dict[str, datetime] = attrs.Factory(dict)
    sources: dict[tuple[str, str], SourceRecord] = attrs.Factory(dict)
    chunks: dict[str, tuple[Chunk, ...]] = attrs.Factory(dict)  # version -> chunks
    vectors: dict[str, dict[str, tuple[float, ...]]] = attrs.Factory(dict)
    models: dict[str, EmbeddingModel] = attrs.Factory(dict)
    fingerprints: dict[str, tuple[str, tuple[float, ...]]] = attrs.Factory(dict)
    structures: dict[str, StoredStructure] = attrs.Factory(dict)
    held_blobs: dict[str, bytes] = attrs.Factory(dict)  # sha256 -> bytes
    last_ingest: datetime | None = None

    def version(self, space: str, version_id: str) -> VersionRecord:
        found = next((v for versions in self.versions.values() for v in versions
                      if v.id == version_id and v.space == space), None)
        if found is None:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
        return found

    def set_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        vectors.model.require_same(self.models.get(space), space)
        self.models.setdefault(space, vectors.model)
        self.vectors[version_id] = dict(zip(vectors.chunk_ids, vectors.vectors, strict=True))

    def sources_of(self, document_id: str) -> list[SourceRecord]:
        return [s for s in self.sources.values() if s.document_id == document_id]

    def record(self, document_id: str) -> DocumentRecord:
        """A stored document with its versions and sources."""
        versions = self.versions[document_id]
        current = versions[-1]
        return DocumentRecord(id=document_id, space=current.space, title=current.title,
                              current=current, sources=tuple(self.sources_of(document_id)),
                              versions=tuple(versions),
                              caller_source_id=self.callers.get(document_id),
                              created_at=self.created[document_id],
                              updated_at=current.created_at)


class CommittedState:
    """The state the last commit left, shared by the ports of one store: they read
    `current` when they are called, so each sees every commit before it."""

    def __init__(self) -> None:
        self.current = MemoryState()

    async def apply(self, steps: list[Step[MemoryState]]) -> None:
        """Run a unit of work's steps on a copy of the state and keep the copy."""
        changed = copy.deepcopy(self.current)
        for step in steps:
            step(changed)  # a step that raises leaves the committed state as it was
        self.current = changed
