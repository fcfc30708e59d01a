"""An in-memory knowledge store: the same contract as the DuckDB store, in dictionaries."""

from __future__ import annotations

from datetime import UTC, datetime

import attrs

from sheaf.domain.bm25 import bm25_scores
from sheaf.domain.chunking import Chunk
from sheaf.domain.ingestion import SourceRef, SpacePolicy
from sheaf.domain.knowledge_records import (
    DocumentRecord,
    SourceRecord,
    SpaceCount,
    StoreStatus,
    VersionRecord,
)

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
                           chunks: tuple[Chunk, ...] = ()) -> None:
        now = version.created_at
        previous = self._documents.get(version.document_id)
        for old in (previous.versions if previous else []):
            self._chunks.pop(old.id, None)
        self._chunks[version.id] = tuple(chunks)
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

    async def chunks(self, space: str, version_id: str) -> tuple[Chunk, ...]:
        return self._chunks.get(version_id, ())

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
        for key in [k for k, s in self._sources.items() if s.document_id == document_id]:
            del self._sources[key]
        released = {sha for v in document.versions
                    for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        still_used = {sha for d in self._documents.values() for v in d.versions
                      for sha in (v.fetched_sha, v.content_sha, v.markdown_sha)}
        return released - still_used

    async def search_text(self, space: str, query: str, limit: int
                          ) -> list[tuple[Chunk, float]]:
        current = {d.versions[-1].id for d in self._documents.values() if d.space == space}
        snippets = [c for version_id in current for c in self._chunks.get(version_id, ())
                    if c.level == "snippet"]
        scores = bm25_scores([c.retrieval_text for c in snippets], query)
        ranked = sorted(((c, s) for c, s in zip(snippets, scores, strict=True) if s > 0),
                        key=lambda pair: (-pair[1], pair[0].id))
        return ranked[:limit]

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
