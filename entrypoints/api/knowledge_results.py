"""What `sheaf.Knowledge` gives back beyond the domain's own records: a batch's progress,
a stored document with its Markdown, and one extracted input.

Their own module, so that a store's holder and its clients build them without loading
the facade (ADR-0022)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ...application.extraction.document_extraction import Extraction
    from ...domain.document.document import Document
    from ...domain.document.resolved_content import ResolvedContent
    from ...domain.errors import SheafError
    from ...domain.routing.directory_listing import SkippedFile
    from ...domain.store.ingestion import IngestResult
    from ...domain.store.knowledge_records import DocumentRecord


@attrs.frozen
class IngestProgress:
    """One source of an `ingest_many` batch finished: `done` of `total` so far."""

    done: int
    total: int
    result: IngestResult
    skipped: tuple[SkippedFile, ...] = ()
    """Files the directories held that are left out, and why: on the batch's first event
    only, so a loop that gathers them sees each once (`Knowledge.listing` gives them
    before any ingest)."""


@attrs.frozen
class StoredDocument:
    """A document's record with its canonical Markdown."""

    record: DocumentRecord
    markdown: str
    id: str = attrs.field(init=False, default=attrs.Factory(
        lambda self: self.record.id, takes_self=True))
    title: str | None = attrs.field(init=False, default=attrs.Factory(
        lambda self: self.record.title, takes_self=True))


@attrs.frozen
class ExtractedSource:
    """One input of `Knowledge.extract`: a URL's resolved content or a local file's
    extraction, or the error that stopped it (the other inputs go on)."""

    source: str
    """The input as it was given."""
    resolved: ResolvedContent | None = None
    """For a URL: what it resolved to (the page, or the PDF it links)."""
    extracted: Extraction | None = None
    """For a local file: its document, route and the decision behind it."""
    error: SheafError | None = None

    @property
    def document(self) -> Document:
        """The extracted document; only for an input without `error`."""
        if self.resolved is not None:
            return self.resolved.document
        if self.extracted is not None:
            return self.extracted.document
        assert self.error is not None
        raise self.error
