"""Everything one version yields, built once at ingest and committed in one write."""

from __future__ import annotations

import attrs

from ..analysis.chunking import Chunk
from ..search.embeddings import ChunkVectors
from .document_analysis import StoredStructure
from .ingestion import SourceRef
from .knowledge_records import VersionRecord


@attrs.frozen
class VersionBundle:
    """A version's record (with its blocks and any generated summary), the source it came
    from, its sections and profile, its chunks (with any generated contexts already in
    their retrieval text), their vectors, and the document's near-duplicate
    fingerprint. `blobs` are (sha256, bytes) the store keeps itself, in the version's
    own write, instead of the blob store before it (small ones: ADR-0047)."""

    record: VersionRecord
    source: SourceRef
    structure: StoredStructure | None = None
    chunks: tuple[Chunk, ...] = ()
    vectors: ChunkVectors | None = None
    fingerprint: tuple[float, ...] | None = None
    final_url: str | None = None
    caller_source_id: str | None = None
    blobs: tuple[tuple[str, bytes], ...] = ()
