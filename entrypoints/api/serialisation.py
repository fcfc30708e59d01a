"""The one JSON form of every result sheaf gives out.

The CLI's `--json`, the HTTP API, the LLM tools and the MCP server all print these
records, so the same document, hit or quote reads the same everywhere; an interface may
wrap them in an envelope of its own (`{"results": [...]}`), never reshape them. (A
store's holder sends other sheaf processes the records themselves instead, in
`value_codec`'s form: ADR-0022.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from ...domain.errors import SheafError

if TYPE_CHECKING:
    from ...application.quotes.claim_checks import ClaimCheck
    from ...application.quotes.quotes import Quote, QuoteCheck
    from ...application.search.search import SearchHit
    from ...domain.analysis.chunking import Chunk
    from ...domain.analysis.sections import Section
    from ...domain.store.ingestion import IngestResult, SpacePolicy
    from ...domain.store.knowledge_records import DocumentRecord, StoreStatus
    from .knowledge_results import StoredDocument

JSON = dict[str, Any]


def document_summary(document: DocumentRecord) -> JSON:
    """A document as listed: identity, current version, sources and caller labels.
    `content` is the kind of content its text came from (html, pdf, raw, ...)."""
    current = document.current
    return {
        "id": document.id, "title": document.title, "space": document.space,
        "url": document.url, "location": document.location.as_dict(),
        "content": current.content_source, "content_type": current.content_type,
        "version": current.id, "versions": len(document.versions),
        "characters": current.characters,
        "metadata": dict(current.metadata), "caller_metadata": dict(current.caller_metadata),
        "source_id": document.caller_source_id,
        "near_duplicate_of": current.near_duplicate_of,
        "near_duplicate_similarity": current.near_duplicate_similarity,
        "generated_summary": current.enrichment,
        "sources": [{"kind": s.kind.value, "original": s.original,
                     "final_url": s.final_url} for s in document.sources],
        "updated_at": document.updated_at.isoformat() if document.updated_at else None,
    }


def document_detail(document: DocumentRecord) -> JSON:
    """A document as shown: its summary, the extraction's diagnostics and every version."""
    return document_summary(document) | {
        "diagnostics": list(document.current.diagnostics),
        "history": [{"id": v.id, "created_at": v.created_at.isoformat(),
                     "superseded_at": v.superseded_at.isoformat() if v.superseded_at
                     else None, "sha256": v.fetched_sha} for v in document.versions]}


def removal(document: DocumentRecord) -> JSON:
    """What removing a document says: its id and title."""
    return {"removed": document.id, "title": document.title}


def document_resource(document: DocumentRecord, uri: str) -> JSON:
    """A document as a resource list names it: its URI, id, title, where it came from
    and its size in characters."""
    return {"uri": uri, "name": document.id, "title": document.title or document.id,
            "description": document.url or document.location.as_dict().get("path") or "",
            "size": document.current.characters}


def document_range(document: StoredDocument, section_path: Iterable[str], start: int,
                   end: int) -> JSON:
    """A span of a document's Markdown, its text and pages still to be filled in as
    much of it as an answer holds: where it is, and what comes next (None at its end)."""
    record = document.record
    return {"document_id": document.id, "title": document.title, "url": record.url,
            "location": record.location.as_dict(), "section_path": list(section_path),
            "start": start, "end": end, "characters": len(document.markdown), "text": "",
            "next": None, "pages": []}


def document_span(document_id: str, start: int, end: int) -> JSON:
    """Where a text goes on in a document: characters start to end."""
    return {"document_id": document_id, "start": start, "end": end}


def document_meta(document: DocumentRecord) -> JSON:
    """The current version's extracted metadata and what the caller attached."""
    current = document.current
    return {"metadata": dict(current.metadata),
            "caller_metadata": dict(current.caller_metadata),
            "caller_version_id": current.caller_version_id}


def hits(found: Iterable[SearchHit]) -> list[JSON]:
    """Ranked hits, each with its rank (from 1), scores, text and citation."""
    return [{"rank": rank, **hit.as_dict()} for rank, hit in enumerate(found, start=1)]


def quote(found: Quote) -> JSON:
    return {key: list(value) if isinstance(value, tuple) else value
            for key, value in found.as_dict().items()}


def quote_check(check: QuoteCheck) -> JSON:
    """The verdict on a quote request by text: status, the passages, or the closest
    passage with what differs. The same record under every interface."""
    return {"status": check.status, "request": check.request, "mode": check.mode,
            "document_id": check.document_id, "quotes": [quote(q) for q in check.quotes],
            "closest": None if check.closest is None else quote(check.closest)}


def claim_check(check: ClaimCheck) -> JSON:
    """The verdict on a claim, sentence by sentence, each with its supporting passages
    (full citations) or its closest passage and what differs."""
    return {"claim": check.claim, "status": check.status, "sentences": [
        {"sentence": s.sentence, "status": s.status,
         "support": [quote(q) for q in s.support],
         "closest": None if s.closest is None else quote(s.closest)}
        for s in check.sentences]}


def not_verified(kind: str, message: str, verification: JSON) -> JSON:
    """A tool's failed answer for a verification that did not verify: the error, with
    the verification record it failed on."""
    return {"error": {"kind": kind, "message": message, "verification": verification}}


def section(found: Section) -> JSON:
    return {"index": found.index, "label": found.label, "level": found.level,
            "heading": found.heading, "path": list(found.path), "start": found.start,
            "end": found.end, "parent": found.parent, "inferred": found.inferred}


def section_resource(found: Section, uri: str) -> JSON:
    """A section with the URI that reads its Markdown."""
    return section(found) | {"uri": uri}


def chunk(found: Chunk) -> JSON:
    return attrs.asdict(found)


def ingest_result(result: IngestResult) -> JSON:
    return result.as_dict()


def crawl_event(event: Any) -> JSON:
    """A crawl's page (`{"page": ...}`) or its end (`{"summary": ...}`), as the CLI's
    `--json`, the HTTP API and the MCP tool give them."""
    from ...application.crawling.site_crawl import CrawlSummary

    if isinstance(event, CrawlSummary):
        return {"summary": event.as_dict()}
    return {"page": event.visit.to_plain()}


def folder_ingest(folder: str, results: Iterable[IngestResult], skipped: int) -> JSON:
    """A folder's ingest: how many of each outcome, each file's result, and how many
    files were left out (sheaf cannot read them)."""
    done = [ingest_result(r) for r in results]
    counts: dict[str, int] = {}
    for entry in done:
        counts[str(entry["status"])] = counts.get(str(entry["status"]), 0) + 1
    return {"folder": folder, "counts": counts, "results": done, "skipped": skipped}


def store_status(status: StoreStatus) -> JSON:
    return {"store": status.location, "schema_version": status.schema_version,
            "last_ingest": status.last_ingest.isoformat() if status.last_ingest else None,
            "spaces": [{"space": s.space, "documents": s.documents, "versions": s.versions,
                        "sources": s.sources} for s in status.spaces]}


def health(status: StoreStatus, version: str, *, full_location: bool = True) -> JSON:
    """The HTTP API's health: this sheaf's version, the store and its schema. Without
    `full_location` (a client that sent no token) a store file is named without its
    folders: where the server keeps its files is not for anyone who can connect."""
    location = status.location
    if not full_location and "://" not in location:
        location = location.replace("\\", "/").rsplit("/", 1)[-1]
    return {"status": "ok", "version": version, "store": location,
            "schema_version": status.schema_version}


def space_policy(space: str, policy: SpacePolicy) -> JSON:
    return {"space": space, "ingestion_enabled": policy.ingestion_enabled,
            "max_bytes": policy.max_bytes,
            "allowed_kinds": sorted(k.value for k in policy.allowed_kinds),
            "enrich": sorted(policy.enrich)}


def error(failure: SheafError) -> JSON:
    """What a tool call or a batch line says of a failure."""
    return {"kind": failure.kind.value, "message": failure.message}


def error_answer(failure: SheafError) -> JSON:
    """An MCP tool's failed answer: the kind, and the message without the kind a failed
    ingest's message already starts with."""
    return {"error": {"kind": failure.kind.value,
                      "message": failure.message.removeprefix(f"{failure.kind.value}: ")}}


def as_received(payload: Any) -> Any:
    """A record as JSON gives it back (tuples as lists, mappings as dicts, enums as
    values): what the CLI prints from, so `--json` and the text lines read the same
    values (ADR-0022)."""
    return json.loads(json.dumps(payload, ensure_ascii=False))
