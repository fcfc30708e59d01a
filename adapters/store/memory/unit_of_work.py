"""The in-memory store's write side: a unit of work's steps run on a copy of the state
at commit, which replaces the committed state only when every step succeeded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import attrs

from ....application.ports.unit_of_work import (
    ChunkRepository,
    SourceRepository,
    VersionRepository,
)
from ....domain.analysis.chunking import Chunk
from ....domain.errors import ErrorKind, SheafError
from ....domain.search.embeddings import ChunkVectors, EmbeddingModel
from ....domain.store.document_analysis import StoredStructure
from ....domain.store.ingestion import SourceRef
from ....domain.store.knowledge_records import SourceRecord
from ....domain.store.version_bundle import VersionBundle
from ..buffered_unit_of_work import BufferedUnitOfWork, Step
from .state import CommittedState, MemoryState


class MemoryUnitOfWork(BufferedUnitOfWork[Step[MemoryState]]):
    """Reads see the committed state; `apply` commits the recorded steps."""

    def __init__(self, committed: CommittedState,
                 apply: Callable[[list[Step[MemoryState]]], Awaitable[None]]) -> None:
        super().__init__(apply)
        self.sources: SourceRepository = _Sources(self, committed)
        self.versions: VersionRepository = _Versions(self, committed)
        self.chunks: ChunkRepository = _Chunks(self)


class _Sources:
    def __init__(self, work: MemoryUnitOfWork, committed: CommittedState) -> None:
        self._work, self._committed = work, committed

    async def get(self, space: str, key: str) -> SourceRecord | None:
        return self._committed.current.sources.get((space, key))

    async def holding(self, space: str, sha256: str) -> str | None:
        return next((d for d, v in self._committed.current.versions.items() if v[-1].space == space
                     and sha256 in (v[-1].fetched_sha, v[-1].content_sha)), None)

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        def write(state: MemoryState) -> None:
            state.sources[(space, source.key)] = SourceRecord(
                space, source.key, source.kind, document_id, fetched_sha, source.original,
                final_url)
            state.last_ingest = datetime.now(UTC)

        self._work.record(write)

    def touch(self, space: str, key: str) -> None:
        self._work.record(lambda state: setattr(state, "last_ingest", datetime.now(UTC)))


class _Versions:
    def __init__(self, work: MemoryUnitOfWork, committed: CommittedState) -> None:
        self._work, self._committed = work, committed

    async def latest_number(self, space: str, document_id: str) -> int:
        versions = self._committed.current.versions.get(document_id, [])
        return max((v.number for v in versions if v.space == space), default=0)

    def add(self, bundle: VersionBundle) -> None:
        def write(state: MemoryState) -> None:
            version, document_id = bundle.record, bundle.record.document_id
            if any(v.id == version.id for vs in state.versions.values() for v in vs):
                raise SheafError(ErrorKind.CORRUPT, f"version {version.id} is already stored")
            if bundle.vectors is not None:
                bundle.vectors.model.require_same(state.models.get(version.space),
                                                  version.space)
            versions = state.versions.setdefault(document_id, [])
            for old in versions:
                state.chunks.pop(old.id, None)
                state.vectors.pop(old.id, None)
            if versions:
                versions[-1] = attrs.evolve(versions[-1], superseded_at=version.created_at)
            versions.append(version)
            state.created.setdefault(document_id, version.created_at)
            if bundle.caller_source_id:
                state.callers[document_id] = bundle.caller_source_id
            state.chunks[version.id] = bundle.chunks
            if bundle.vectors is not None:
                state.set_vectors(version.space, version.id, bundle.vectors)
            if bundle.fingerprint is not None:
                state.fingerprints[document_id] = (version.space, bundle.fingerprint)
            if bundle.structure is not None:
                state.structures[version.id] = bundle.structure
            state.held_blobs.update(bundle.blobs)
            state.sources[(version.space, bundle.source.key)] = SourceRecord(
                version.space, bundle.source.key, bundle.source.kind, document_id,
                version.fetched_sha, bundle.source.original, bundle.final_url)
            state.last_ingest = version.created_at

        self._work.record(write)

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        def write(state: MemoryState) -> None:
            version = state.version(space, version_id)
            versions = state.versions[version.document_id]
            versions[versions.index(version)] = attrs.evolve(
                version, enrichment=summary if summary is not None else version.enrichment,
                diagnostics=(*version.diagnostics, *diagnostics))

        self._work.record(write)

    def save_structure(self, space: str, version_id: str,
                       structure: StoredStructure) -> None:
        def write(state: MemoryState) -> None:
            state.version(space, version_id)
            state.structures[version_id] = structure

        self._work.record(write)

    def remove(self, space: str, document_id: str) -> None:
        def write(state: MemoryState) -> None:
            versions = state.versions.get(document_id)
            if not versions or versions[-1].space != space:
                return
            del state.versions[document_id]
            for version in versions:
                for table in (state.chunks, state.vectors, state.structures):
                    table.pop(version.id, None)  # type: ignore[attr-defined]
            state.fingerprints.pop(document_id, None)
            state.callers.pop(document_id, None)
            for key in [k for k, s in state.sources.items() if s.document_id == document_id]:
                del state.sources[key]

        self._work.record(write)


class _Chunks:
    def __init__(self, work: MemoryUnitOfWork) -> None:
        self._work = work

    def replace(self, space: str, version_id: str, chunks: tuple[Chunk, ...],
                vectors: ChunkVectors | None) -> None:
        def write(state: MemoryState) -> None:
            state.version(space, version_id)
            state.chunks[version_id] = tuple(chunks)
            state.vectors.pop(version_id, None)
            if vectors is not None:
                state.set_vectors(space, version_id, vectors)

        self._work.record(write)

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        def write(state: MemoryState) -> None:
            state.version(space, version_id)
            state.set_vectors(space, version_id, vectors)

        self._work.record(write)

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        def write(state: MemoryState) -> None:
            for versions in state.versions.values():
                for version in versions:
                    if version.space == space:
                        state.vectors.pop(version.id, None)
            state.models[space] = model

        self._work.record(write)
