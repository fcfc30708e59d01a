"""Everything one version yields, built once at ingest and committed in one write."""

from __future__ import annotations

import attrs

from sheaf.domain.chunking import Chunk
from sheaf.domain.document_analysis import StoredStructure
from sheaf.domain.embeddings import ChunkVectors
from sheaf.domain.ingestion import SourceRef
from sheaf.domain.knowledge_records import VersionRecord


@attrs.frozen
class VersionBundle:
    """A version's record (with its blocks and any generated summary), the source it came
    from, its sections and profile, its chunks (with any generated contexts already in
    their retrieval text), their vectors, and the document's near-duplicate
    fingerprint."""

    record: VersionRecord
    source: SourceRef
    structure: StoredStructure | None = None
    chunks: tuple[Chunk, ...] = ()
    vectors: ChunkVectors | None = None
    fingerprint: tuple[float, ...] | None = None
    final_url: str | None = None
    caller_source_id: str | None = None
