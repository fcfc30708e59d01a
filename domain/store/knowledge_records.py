"""What the knowledge store keeps: documents, their versions, sources and blocks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import attrs

from ..document.document_location import DocumentLocation
from ..document.extraction_confidence import ExtractionConfidence, confidence_of
from ..values.frozen_mapping import frozen_mapping, optional_frozen_mapping
from .ingestion import SourceKind


@attrs.frozen
class BlockRow:
    """A block of a stored version, by its span in the version's Markdown."""

    kind: str
    start: int
    end: int
    level: int = 0
    label: str | None = None
    pages: tuple[int, ...] = ()


@attrs.frozen
class SourceRecord:
    """One source (URL or file) a document is known by, and the bytes it last gave."""

    space: str
    key: str
    kind: SourceKind
    document_id: str
    fetched_sha: str
    original: str
    final_url: str | None = None


@attrs.frozen
class VersionRecord:
    """One extracted version of a document, as stored."""

    id: str
    document_id: str
    space: str
    number: int
    fetched_sha: str
    """Of the bytes the source answered with (what identity and dedup compare)."""
    content_sha: str
    """Of the bytes the text was extracted from (a linked PDF, or the same bytes)."""
    markdown_sha: str
    content_source: str
    content_type: str
    title: str | None
    created_at: datetime
    metadata: Mapping[str, object] = attrs.field(factory=dict, converter=frozen_mapping)
    caller_metadata: Mapping[str, str] = attrs.field(factory=dict, converter=frozen_mapping)
    caller_version_id: str | None = None
    diagnostics: tuple[str, ...] = ()
    blocks: tuple[BlockRow, ...] = ()
    superseded_at: datetime | None = None
    characters: int = 0
    near_duplicate_of: str | None = None
    """A document already stored whose text this version's nearly repeats (recorded, not
    dropped: the caller decides)."""
    near_duplicate_similarity: float | None = None
    enrichment: Mapping[str, object] | None = attrs.field(
        default=None, converter=optional_frozen_mapping)
    """A generated summary and concepts (`generated: true`), when enrichment ran."""


@attrs.frozen
class DocumentRecord:
    """A document: its current version, every source it is known by, its history."""

    id: str
    space: str
    title: str | None
    current: VersionRecord
    sources: tuple[SourceRecord, ...]
    versions: tuple[VersionRecord, ...]
    caller_source_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def url(self) -> str | None:
        """The URL to cite: the first URL source, where its redirects ended."""
        return cited_url(self.sources)

    @property
    def location(self) -> DocumentLocation:
        """Where to cite the document from (see `cited_location`)."""
        return cited_location(self.sources)

    @property
    def citation(self) -> DocumentCitation:
        return DocumentCitation(self.id, self.title, self.url, self.location,
                                confidence_of(self.current.metadata))


@attrs.frozen
class DocumentCitation:
    """What a hit needs to cite its document: id, title, URL and location."""

    document_id: str
    title: str | None
    url: str | None
    location: DocumentLocation
    extraction_confidence: ExtractionConfidence | None = None
    """The current version's confidence in its main content (HTML pages)."""


def cited_url(sources: Sequence[SourceRecord]) -> str | None:
    """The first URL source (in the order they were seen), where its redirects ended."""
    return next((s.final_url or s.original for s in sources if s.kind is SourceKind.URL),
                None)


def cited_location(sources: Sequence[SourceRecord]) -> DocumentLocation:
    """A document's URL, else the local file it was read from (absolute path and `file:`
    URI), else the name of the uploaded file."""
    url = cited_url(sources)
    if url is not None:
        return DocumentLocation(url=url)
    for kind in (SourceKind.FILE, SourceKind.UPLOAD):
        source = next((s for s in sources if s.kind is kind), None)
        if source is None:
            continue
        if kind is SourceKind.FILE:
            return DocumentLocation.of_file(source.key)
        return DocumentLocation(file_name=source.original)
    return DocumentLocation()


@attrs.frozen
class SpaceCount:
    space: str
    documents: int
    versions: int
    sources: int


@attrs.frozen
class StoreCompaction:
    """A store's size on disk in bytes before and after it was rewritten with only its
    live data (0 and 0 for a store that keeps nothing on disk)."""

    before: int
    after: int


@attrs.frozen
class StoreStatus:
    location: str
    schema_version: int
    spaces: tuple[SpaceCount, ...]
    last_ingest: datetime | None
