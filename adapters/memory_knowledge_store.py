"""An in-memory knowledge store: the same contract as the DuckDB store, in dictionaries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

import attrs

from sheaf.domain.bm25 import bm25_scores
from sheaf.domain.chunking import Chunk
from sheaf.domain.document_analysis import StoredStructure
from sheaf.domain.embeddings import ChunkVectors, EmbeddingModel, cosine
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.ingestion import SourceRef, SpacePolicy
from sheaf.domain.knowledge_records import (
    DocumentCitation,
    DocumentRecord,
    SourceRecord,
    SpaceCount,
    StoreStatus,
    VersionRecord,
)
from sheaf.domain.search_request import NO_FILTERS, SearchFilters

SCHEMA_VERSION = 1


@attrs.define
class _Document:
    id: str
    space: str
    versions: list[VersionRecord]
    caller_source_id: str | None
    created_at: datetime
    updated_at: datetime


class MemoryKnowledgeStore:
    """Keeps everything in process memory; for tests and throwaway runs."""

    def __init__(self) -> None:
        self._documents: dict[str, _Document] = {}
        self._sources: dict[tuple[str, str], SourceRecord] = {}
        self._policies: dict[str, SpacePolicy] = {}
        self._chunks: dict[str, tuple[Chunk, ...]] = {}
        self._vectors: dict[str, dict[str, tuple[float, ...]]] = {}  # version -> chunk -> v
        self._models: dict[str, EmbeddingModel] = {}
        self._fingerprints: dict[str, tuple[str, tuple[float, ...]]] = {}  # doc -> space, fp
        self._cache: dict[str, str] = {}
        self._structures: dict[str, StoredStructure] = {}
        self._last_ingest: datetime | None = None

    async def source(self, space: str, key: str) -> SourceRecord | None:
        return self._sources.get((space, key))

    async def document_with_content(self, space: str, sha256: str) -> str | None:
        for document in self._documents.values():
            current = document.versions[-1]
            if document.space == space and sha256 in (current.fetched_sha, current.content_sha):
                return document.id
        return None

    async def save_version(self, version: VersionRecord, source: SourceRef,
                           final_url: str | None = None,
                           caller_source_id: str | None = None,
                           chunks: tuple[Chunk, ...] = (),
                           vectors: ChunkVectors | None = None,
                           fingerprint: tuple[float, ...] | None = None,
                           structure: StoredStructure | None = None) -> None:
        if structure is not None:
            self._structures[version.id] = structure
        if vectors is not None:
            vectors.model.require_same(self._models.get(version.space), version.space)
        now = version.created_at
        previous = self._documents.get(version.document_id)
        for old in (previous.versions if previous else []):
            self._chunks.pop(old.id, None)
            self._vectors.pop(old.id, None)
        self._chunks[version.id] = tuple(chunks)
        if vectors is not None:
            self._models.setdefault(version.space, vectors.model)
            self._vectors[version.id] = dict(zip(vectors.chunk_ids, vectors.vectors,
                                                 strict=True))
        if fingerprint is not None:
            self._fingerprints[version.document_id] = (version.space, fingerprint)
        document = self._documents.get(version.document_id)
        if document is None:
            document = _Document(version.document_id, version.space, [], caller_source_id,
                                 now, now)
            self._documents[document.id] = document
        if document.versions:
            document.versions[-1] = attrs.evolve(document.versions[-1], superseded_at=now)
        document.versions.append(version)
        document.updated_at = now
        if caller_source_id:
            document.caller_source_id = caller_source_id
        self._sources[(version.space, source.key)] = SourceRecord(
            version.space, source.key, source.kind, document.id, version.fetched_sha,
            source.original, final_url)
        self._last_ingest = now

    async def add_source(self, space: str, document_id: str, source: SourceRef,
                         fetched_sha: str, final_url: str | None = None) -> None:
        self._sources[(space, source.key)] = SourceRecord(space, source.key, source.kind,
                                                          document_id, fetched_sha,
                                                          source.original, final_url)
        self._last_ingest = datetime.now(UTC)

    async def replace_chunks(self, space: str, version_id: str,
                             chunks: tuple[Chunk, ...]) -> None:
        self._chunks[version_id] = tuple(chunks)
        self._vectors.pop(version_id, None)

    async def reset_vectors(self, space: str, model: EmbeddingModel) -> None:
        for document in self._documents.values():
            if document.space == space:
                for version in document.versions:
                    self._vectors.pop(version.id, None)
        self._models[space] = model

    async def replace_vectors(self, space: str, version_id: str,
                              vectors: ChunkVectors) -> None:
        if not any(v.id == version_id for d in self._documents.values() if d.space == space
                   for v in d.versions):
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
        vectors.model.require_same(self._models.get(space), space)
        self._models.setdefault(space, vectors.model)
        self._vectors[version_id] = dict(zip(vectors.chunk_ids, vectors.vectors, strict=True))

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        return self._models.get(space)

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        found = [(document_id, cosine(fingerprint, stored))
                 for document_id, (stored_space, stored) in self._fingerprints.items()
                 if stored_space == space]
        return sorted(((d, s) for d, s in found if s >= threshold),
                      key=lambda pair: (-pair[1], pair[0]))

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        return self._chunks.get(version_id, ())

    async def structure(self, space: str, version_id: str) -> StoredStructure | None:
        return self._structures.get(version_id) if self._version(space, version_id) \
            else None

    async def save_structure(self, space: str, version_id: str,
                             structure: StoredStructure) -> None:
        if self._version(space, version_id) is None:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
        self._structures[version_id] = structure

    def _version(self, space: str, version_id: str) -> VersionRecord | None:
        return next((v for d in self._documents.values() if d.space == space
                     for v in d.versions if v.id == version_id), None)

    async def touch_source(self, space: str, key: str) -> None:
        self._last_ingest = datetime.now(UTC)

    async def find(self, space: str, reference: str) -> DocumentRecord | None:
        document = self._documents.get(reference)
        if document is None or document.space != space:
            document = next((d for d in self._documents.values() if d.space == space and (
                d.caller_source_id == reference or any(
                    reference in (s.key, s.original, s.final_url)
                    for s in self._sources.values() if s.document_id == d.id))), None)
        return self._record(document) if document else None

    async def citations(self, space: str, document_ids: Sequence[str]
                        ) -> dict[str, DocumentCitation]:
        found = [self._documents.get(i) for i in document_ids]
        return {d.id: self._record(d).citation for d in found
                if d is not None and d.space == space}

    async def documents(self, space: str) -> list[DocumentRecord]:
        found = [self._record(d) for d in self._documents.values() if d.space == space]
        return sorted(found, key=lambda d: d.updated_at or d.current.created_at, reverse=True)

    async def remove(self, space: str, document_id: str) -> set[str]:
        document = self._documents.get(document_id)
        if document is None or document.space != space:
            return set()
        del self._documents[document_id]
        for version in document.versions:
            self._chunks.pop(version.id, None)
            self._vectors.pop(version.id, None)
            self._structures.pop(version.id, None)
        self._fingerprints.pop(document_id, None)
        for key in [k for k, s in self._sources.items() if s.document_id == document_id]:
            del self._sources[key]
        released = {sha for v in document.versions
                    for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        still_used = {sha for d in self._documents.values() for v in d.versions
                      for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        return released - still_used

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        snippets = self._current_snippets(space, filters)
        scores = bm25_scores([c.retrieval_text for c in snippets], query)
        return _ranked(zip(snippets, scores, strict=True), limit, positive=True)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        model.require_same(self._models.get(space), space)
        scored = []
        for chunk in self._current_snippets(space, filters):
            version_id = chunk.id.rsplit(":", 2)[0]
            stored = self._vectors.get(version_id, {}).get(chunk.id)
            if stored is not None:
                scored.append((chunk, cosine(vector, stored)))
        return _ranked(scored, limit, positive=False)

    async def snippets(self, space: str, chunk_ids: list[str]) -> list[Chunk]:
        wanted = set(chunk_ids)
        found = {c.id: c for c in self._current_snippets(space, NO_FILTERS) if c.id in wanted}
        return [found[i] for i in chunk_ids if i in found]

    def _current_snippets(self, space: str, filters: SearchFilters) -> list[Chunk]:
        found = []
        for document in self._documents.values():
            current = document.versions[-1]
            if document.space != space or not _passes(document.id, current, filters):
                continue
            found += [c for c in self._chunks.get(current.id, ()) if c.level == "snippet" and (
                filters.admits_section(c.section_label))]
        return found

    async def save_enrichment(self, space: str, version_id: str,
                              summary: dict[str, object] | None,
                              chunks: tuple[Chunk, ...] | None,
                              vectors: ChunkVectors | None,
                              diagnostics: tuple[str, ...]) -> None:
        found = next(((d, i) for d in self._documents.values() if d.space == space
                      for i, v in enumerate(d.versions) if v.id == version_id), None)
        if found is None:
            raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
        if vectors is not None:
            vectors.model.require_same(self._models.get(space), space)
        document, index = found
        version = document.versions[index]
        document.versions[index] = attrs.evolve(
            version, enrichment=summary if summary is not None else version.enrichment,
            diagnostics=(*version.diagnostics, *diagnostics))
        if chunks is not None:
            self._chunks[version_id] = tuple(chunks)
            self._vectors.pop(version_id, None)
        if vectors is not None:
            self._vectors[version_id] = dict(zip(vectors.chunk_ids, vectors.vectors,
                                                 strict=True))

    async def cached_text(self, key: str) -> str | None:
        return self._cache.get(key)

    async def cache_text(self, key: str, value: str) -> None:
        self._cache[key] = value

    async def policy(self, space: str) -> SpacePolicy:
        return self._policies.get(space, SpacePolicy())

    async def set_policy(self, space: str, policy: SpacePolicy) -> None:
        self._policies[space] = policy

    async def status(self) -> StoreStatus:
        spaces = sorted({d.space for d in self._documents.values()})
        counts = tuple(SpaceCount(
            space,
            sum(1 for d in self._documents.values() if d.space == space),
            sum(len(d.versions) for d in self._documents.values() if d.space == space),
            sum(1 for s in self._sources.values() if s.space == space)) for space in spaces)
        return StoreStatus("memory", SCHEMA_VERSION, counts, self._last_ingest)

    async def aclose(self) -> None:
        return None

    def _record(self, document: _Document) -> DocumentRecord:
        sources = tuple(s for s in self._sources.values() if s.document_id == document.id)
        return DocumentRecord(id=document.id, space=document.space,
                              title=document.versions[-1].title,
                              current=document.versions[-1], sources=sources,
                              versions=tuple(document.versions),
                              caller_source_id=document.caller_source_id,
                              created_at=document.created_at, updated_at=document.updated_at)


def _passes(document_id: str, version: VersionRecord, filters: SearchFilters) -> bool:
    return ((not filters.document_ids or document_id in filters.document_ids)
            and (not filters.content_sources
                 or version.content_source in filters.content_sources)
            and all(version.caller_metadata.get(k) == v for k, v in filters.metadata))


def _ranked(scored: Iterable[tuple[Chunk, float]], limit: int, *, positive: bool
            ) -> list[tuple[str, float]]:
    kept = [(c.id, s) for c, s in scored if s > 0 or not positive]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0]))[:limit]
