"""What ingesting a source means: its identity, the outcome, and a space's policy."""

from __future__ import annotations

import enum
import hashlib

import attrs

from ..document.content_source import ContentSource
from ..errors import ErrorKind, SheafError
from ..worded_enum import WordedEnum
from .spaces import DEFAULT_SPACE as DEFAULT_SPACE  # where callers import it

DEFAULT_MAX_INGEST_BYTES = 25 * 1024 * 1024


class SourceKind(WordedEnum):
    URL = "url"
    FILE = "file"
    UPLOAD = "upload"
    """A file a client sent: keyed by where it was spooled, `original` is the file name
    the client gave."""


@attrs.frozen
class SourceRef:
    """A source's identity: its normalised URL or absolute file path."""

    kind: SourceKind
    key: str
    original: str


class IngestStatus(WordedEnum):
    """What an ingest did to the store."""

    NEW = "new"
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    DUPLICATE = "duplicate"
    FAILED = "failed"


@attrs.frozen
class IngestResult:
    """The outcome of one source, for summaries and JSON output."""

    source: str
    status: IngestStatus
    document_id: str | None = None
    version_id: str | None = None
    title: str | None = None
    error_kind: str | None = None
    message: str | None = None
    near_duplicate_of: str | None = None
    enrichment: str | None = None
    """enriched, partial (token budget spent), failed or skipped; None when not asked."""
    extraction_confidence: float | None = None
    """How far the extractor trusts its choice of the page's main content (HTML)."""
    low_confidence: str | None = None
    """Why, when that confidence is low: the version may not hold the page's article."""

    def as_dict(self) -> dict[str, object]:
        return {k: (v.value if isinstance(v, enum.Enum) else v)
                for k, v in attrs.asdict(self, recurse=False).items() if v is not None}


@attrs.frozen
class SpacePolicy:
    """What a space accepts."""

    ingestion_enabled: bool = True
    max_bytes: int = DEFAULT_MAX_INGEST_BYTES
    allowed_kinds: frozenset[ContentSource] = frozenset(ContentSource)
    enrich: frozenset[str] = frozenset()
    """Enrichments every ingest into the space runs (`summary`, `context`)."""

    def check_enabled(self, source: str) -> None:
        if not self.ingestion_enabled:
            raise SheafError(ErrorKind.INGESTION_DISABLED,
                             "ingestion is disabled for this space", url=source)

    def check_size(self, size: int, source: str) -> None:
        if size > self.max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE,
                             f"{size} bytes is over this space's {self.max_bytes} byte limit",
                             url=source)

    def check_kind(self, kind: ContentSource, source: str) -> None:
        if kind not in self.allowed_kinds:
            allowed = ", ".join(sorted(k.value for k in self.allowed_kinds))
            raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                             f"{kind.value} content is not accepted here (allowed: {allowed})",
                             url=source)


def document_id_for(space: str, source_key: str) -> str:
    """A stable id from the space and the first source a document was ingested from."""
    digest = hashlib.sha256(f"{space}\n{source_key}".encode()).hexdigest()
    return f"doc_{digest[:16]}"


def version_id_for(document_id: str, number: int) -> str:
    return f"{document_id}.v{number}"
