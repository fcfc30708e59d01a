"""Rows the SQL stores (DuckDB, PostgreSQL) read back in the same column order, as
records: one reading for both, so their answers cannot drift apart."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ...domain.document.extraction_confidence import ExtractionConfidence, confidence_of
from ...domain.store.ingestion import SourceKind
from ...domain.store.knowledge_records import (
    DocumentCitation,
    SourceRecord,
    cited_location,
    cited_url,
)


def source_from_row(row: Sequence[Any]) -> SourceRecord:
    """A source from its columns: space, key, kind, document_id, fetched_sha, original,
    final_url."""
    return SourceRecord(space=row[0], key=row[1], kind=SourceKind(row[2]), document_id=row[3],
                        fetched_sha=row[4], original=row[5], final_url=row[6])


def citations_from_rows(rows: Iterable[Sequence[Any]]) -> dict[str, DocumentCitation]:
    """Citations from (document id, title, version metadata, *source columns) rows, the
    source columns null for a document without sources, each document's sources in the
    order cited."""
    titles: dict[str, str | None] = {}
    confidences: dict[str, ExtractionConfidence | None] = {}
    sources: dict[str, list[SourceRecord]] = {}
    for row in rows:
        if row[0] not in titles:
            titles[row[0]] = row[1]
            metadata = row[2] if isinstance(row[2], dict) else json.loads(row[2] or "{}")
            confidences[row[0]] = confidence_of(metadata)
        sources.setdefault(row[0], [])
        if row[4] is not None:
            sources[row[0]].append(source_from_row(row[3:]))
    return {i: DocumentCitation(i, titles[i], cited_url(sources[i]),
                                cited_location(sources[i]), confidences[i]) for i in titles}
