"""An in-memory store: the same ports and contract as the DuckDB store, in dictionaries.
Ranking uses the domain's BM25 and cosine, so only the index machinery differs."""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime

import attrs

from ...application.store.storage import Storage
from ...domain.analysis.chunking import Chunk
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.bm25 import bm25_scores
from ...domain.search.embeddings import ChunkVectors, EmbeddingModel, cosine
from ...domain.search.search_request import NO_FILTERS, SearchFilters
from ...domain.store.document_analysis import StoredStructure
from ...domain.store.ingestion import SourceRef, SpacePolicy
from ...domain.store.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SourceRecord,
    SpaceCount,
    StoreStatus,
    VersionRecord,
)
from ...domain.store.version_bundle import VersionBundle
from .buffered_unit_of_work import BufferedUnitOfWork, Step

SCHEMA_VERSION = 1


@attrs.define
class _State:
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


class MemoryKnowledgeStore:
    """Keeps everything in process memory; for tests and throwaway runs."""

    def __init__(self) -> None:
        self._state = _State()
        self._policies: dict[str, SpacePolicy] = {}
        self._cache: dict[str, str] = {}

    def storage(self) -> Storage:
        return Storage(lambda: _MemoryUnitOfWork(self), self, self, self, self, self.aclose)

    async def _apply(self, steps: list[Step[_State]]) -> None:
        changed = copy.deepcopy(self._state)
        for step in steps:
            step(changed)  # a step that raises leaves the committed state as it was
        self._state = changed

    # -- catalogue -----------------------------------------------------------------------
    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        state = self._state
        if reference in state.versions and state.versions[reference][-1].space == space:
            return self._record(reference)
        for document_id, versions in state.versions.items():
            if versions[-1].space == space and (state.callers.get(document_id) == reference
                                                or any(reference in (s.key, s.original,
                                                                     s.final_url)
                                                       for s in self._sources(document_id))):
                return self._record(document_id)
        return None

    async def documents(self, space: str) -> list[DocumentRecord]:
        found = [self._record(d) for d, v in self._state.versions.items() if v[-1].space == space]
        return sorted(found, key=lambda d: d.updated_at or d.current.created_at, reverse=True)

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        return self._state.structures.get(version_id)

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        return self._state.chunks.get(version_id, ())

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        return {i: self._record(i).citation for i in document_ids
                if i in self._state.versions and self._state.versions[i][-1].space == space}

    async def unreferenced(self, hashes: Collection[str]) -> set[str]:
        used = {sha for versions in self._state.versions.values() for v in versions
                for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        return set(hashes) - used

    async def status(self) -> StoreStatus:
        state = self._state
        spaces = sorted({v[-1].space for v in state.versions.values()})
        counts = tuple(SpaceCount(
            space, sum(1 for v in state.versions.values() if v[-1].space == space),
            sum(len(v) for v in state.versions.values() if v[-1].space == space),
            sum(1 for s in state.sources.values() if s.space == space)) for space in spaces)
        return StoreStatus("memory", SCHEMA_VERSION, counts, state.last_ingest)

    # -- search index ----------------------------------------------------------------------
    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS) -> list[tuple[str, float]]:
        snippets = self._current_snippets(space, filters)
        scores = bm25_scores([c.retrieval_text for c in snippets], query)
        return _ranked(zip(snippets, scores, strict=True), limit, positive=True)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS) -> list[tuple[str, float]]:
        model.require_same(self._state.models.get(space), space)
        scored = [(c, cosine(vector, stored)) for c in self._current_snippets(space, filters)
                  if (stored := self._state.vectors.get(c.id.rsplit(":", 2)[0], {}).get(c.id))
                  is not None]
        return _ranked(scored, limit, positive=False)

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        found = {c.id: c for c in self._current_snippets(space, NO_FILTERS)}
        return [found[i] for i in chunk_ids if i in found]

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return self._state.models.get(space)

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        found = [(d, cosine(fingerprint, stored))
                 for d, (in_space, stored) in self._state.fingerprints.items()
                 if in_space == space]
        return sorted(((d, s) for d, s in found if s >= threshold), key=lambda p: (-p[1], p[0]))

    # -- policies and answers --------------------------------------------------------------
    async def policy(self, space: str) -> SpacePolicy:
        return self._policies.get(space, SpacePolicy())

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        self._policies[space] = policy

    async def cached_text(self, key: str) -> str | None:
        return self._cache.get(key)

    async def cache_text(self, key: str, value: str) -> None:
        self._cache[key] = value

    async def aclose(self) -> None:
        return None

    def _sources(self, document_id: str) -> list[SourceRecord]:
        return [s for s in self._state.sources.values() if s.document_id == document_id]

    def _record(self, document_id: str) -> DocumentRecord:
        versions = self._state.versions[document_id]
        current = versions[-1]
        return DocumentRecord(id=document_id, space=current.space, title=current.title,
                              current=current, sources=tuple(self._sources(document_id)),
                              versions=tuple(versions),
                              caller_source_id=self._state.callers.get(document_id),
                              created_at=self._state.created[document_id],
                              updated_at=current.created_at)

    def _current_snippets(self, space: str, filters: SearchFilters) -> list[Chunk]:
        found = []
        for document_id, versions in self._state.versions.items():
            current = versions[-1]
            if current.space == space and _passes(document_id, current, filters):
                found += [c for c in self._state.chunks.get(current.id, ())
                          if c.level == "snippet" and filters.admits_section(c.section_label)]
        return found


class _MemoryUnitOfWork(BufferedUnitOfWork[Step[_State]]):
    def __init__(self, store: MemoryKnowledgeStore) -> None:
        super().__init__(store._apply)
        self.sources = _Sources(self, store)
        self.versions = _Versions(self, store)
        self.chunks = _Chunks(self)


class _Sources:
    def __init__(self, work: _MemoryUnitOfWork, store: MemoryKnowledgeStore) -> None:
        self._work, self._store = work, store

    async def get(self, space: str, key: str) -> SourceRecord | None:
        return self._store._state.sources.get((space, key))

    async def holding(self, space: str, sha256: str) -> str | None:
        return next((d for d, v in self._store._state.versions.items() if v[-1].space == space
                     and sha256 in (v[-1].fetched_sha, v[-1].content_sha)), None)

    def add(self, space: str, document_id: str, source: SourceRef, fetched_sha: str,
            final_url: str | None = None) -> None:
        def write(state: _State) -> None:
            state.sources[(space, source.key)] = SourceRecord(
                space, source.key, source.kind, document_id, fetched_sha, source.original,
                final_url)
            state.last_ingest = datetime.now(UTC)

        self._work.record(write)

    def touch(self, space: str, key: str) -> None:
        self._work.record(lambda state: setattr(state, "last_ingest", datetime.now(UTC)))


class _Versions:
    def __init__(self, work: _MemoryUnitOfWork, store: MemoryKnowledgeStore) -> None:
        self._work, self._store = work, store

    async def latest_number(self, space: str, document_id: str) -> int:
        versions = self._store._state.versions.get(document_id, [])
        return max((v.number for v in versions if v.space == space), default=0)

    def add(self, bundle: VersionBundle) -> None:
        def write(state: _State) -> None:
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
            state.sources[(version.space, bundle.source.key)] = SourceRecord(
                version.space, bundle.source.key, bundle.source.kind, document_id,
                version.fetched_sha, bundle.source.original, bundle.final_url)
            state.last_ingest = version.created_at

        self._work.record(write)

    def annotate(self, space: str, version_id: str, summary: dict[str, object] | None,
                 diagnostics: tuple[str, ...]) -> None:
        def write(state: _State) -> None:
            version = state.version(space, version_id)
            versions = state.versions[version.document_id]
            versions[versions.index(version)] = attrs.evolve(
                version, enrichment=summary if summary is not None else version.enrichment,
                diagnostics=(*version.diagnostics, *diagnostics))

        self._work.record(write)

    def save_structure(self, space: str, version_id: str,
                       structure: StoredStructure) -> None:
        def write(state: _State) -> None:
            state.version(space, version_id)
            state.structures[version_id] = structure

        self._work.record(write)

    def remove(self, space: str, document_id: str) -> None:
        def write(state: _State) -> None:
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
    def __init__(self, work: _MemoryUnitOfWork) -> None:
        self._work = work

    def replace(self, space: str, version_id: str, chunks: tuple[Chunk, ...],
                vectors: ChunkVectors | None) -> None:
        def write(state: _State) -> None:
            state.version(space, version_id)
            state.chunks[version_id] = tuple(chunks)
            state.vectors.pop(version_id, None)
            if vectors is not None:
                state.set_vectors(space, version_id, vectors)

        self._work.record(write)

    def replace_vectors(self, space: str, version_id: str, vectors: ChunkVectors) -> None:
        def write(state: _State) -> None:
            state.version(space, version_id)
            state.set_vectors(space, version_id, vectors)

        self._work.record(write)

    def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        def write(state: _State) -> None:
            for versions in state.versions.values():
                for version in versions:
                    if version.space == space:
                        state.vectors.pop(version.id, None)
            state.models[space] = model

        self._work.record(write)


def _passes(document_id: str, version: VersionRecord, filters: SearchFilters) -> bool:
    return ((not filters.document_ids or document_id in filters.document_ids)
            and (not filters.content_sources
                 or version.content_source in filters.content_sources)
            and all(version.caller_metadata.get(k) == v for k, v in filters.metadata))


def _ranked(scored: Iterable[tuple[Chunk, float]], limit: int, *, positive: bool
            ) -> list[tuple[str, float]]:
    kept = [(c.id, s) for c, s in scored if s > 0 or not positive]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0]))[:limit]
