"""What new bytes from a source mean for the store: a new document, the same version
again, a new version, or an alias of a document that already holds them."""

from __future__ import annotations

import attrs

from .ingestion import IngestStatus, document_id_for, version_id_for
from .knowledge_records import SourceRecord


@attrs.frozen
class VersionDecision:
    """The outcome for one source's bytes, with the document (and, for new or changed
    bytes, the version) it lands in."""

    outcome: IngestStatus
    document_id: str
    number: int | None = None
    """The version number to store: one past the document's newest; None when nothing
    new is stored (unchanged, duplicate)."""

    @property
    def version_id(self) -> str | None:
        return None if self.number is None else version_id_for(self.document_id,
                                                                 self.number)

    @property
    def stores_version(self) -> bool:
        return self.number is not None


def decide(space: str, key: str, known: SourceRecord | None, latest_number: int,
           twin: str | None, fetched_sha: str, force: bool) -> VersionDecision:
    """The rule, in order: a known source giving the bytes it gave last is `unchanged`
    (unless `force`); a known source giving other bytes is `changed`, one version past
    its newest (`latest_number`); an unknown source whose bytes a document already holds
    (`twin`) is a `duplicate` of it; anything else is `new`, version 1."""
    if known is not None:
        if known.fetched_sha == fetched_sha and not force:
            return VersionDecision(IngestStatus.UNCHANGED, known.document_id)
        return VersionDecision(IngestStatus.CHANGED, known.document_id, latest_number + 1)
    if twin is not None:
        return VersionDecision(IngestStatus.DUPLICATE, twin)
    return VersionDecision(IngestStatus.NEW, document_id_for(space, key), 1)
