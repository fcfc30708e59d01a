"""Records to rows and back for the PostgreSQL store, and the reads that rebuild a
document from its three tables in three queries whatever their number."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg

from ....domain.analysis.chunking import Chunk
from ....domain.errors import ErrorKind, SheafError
from ....domain.store.knowledge_records import BlockRow, DocumentRecord, SourceRecord, VersionRecord
from ..store_rows import source_from_row

Connection = psycopg.AsyncConnection[tuple[Any, ...]]

VERSION_COLUMNS = ("id, document_id, space, number, fetched_sha, content_sha, markdown_sha, "
                   "content_source, content_type, title, created_at, superseded_at, metadata, "
                   "caller_metadata, caller_version_id, diagnostics, characters, blocks, "
                   "near_duplicate_of, near_duplicate_similarity, enrichment")
SOURCE_COLUMNS = "space, key, kind, document_id, fetched_sha, original, final_url"
CHUNK_FIELDS = ("id", "version_id", "document_id", "space", "level", "idx", "start_offset",
                "end_offset", "tokens", "heading_path", "section_label", "page_first",
                "page_last", "parent_id", "prev_id", "next_id", "text", "retrieval_text",
                "context")
CHUNK_COLUMNS = ("c.id, c.level, c.idx, c.start_offset, c.end_offset, c.text, c.tokens, "
                 "c.heading_path, c.section_label, c.page_first, c.page_last, c.parent_id, "
                 "c.prev_id, c.next_id, c.retrieval_text, c.context")


def chunk_from_row(r: Sequence[Any]) -> Chunk:
    return Chunk(id=r[0], level=r[1], index=int(r[2]), start=int(r[3]), end=int(r[4]),
                 text=r[5], tokens=int(r[6]), heading_path=tuple(r[7]), section_label=r[8],
                 pages=(int(r[9]), int(r[10])) if r[9] is not None else (),
                 parent_id=r[11], prev_id=r[12], next_id=r[13], retrieval_text=r[14],
                 context=r[15])


def chunk_row(chunk: Chunk, version_id: str, document_id: str, space: str
              ) -> tuple[object, ...]:
    """A chunk in `CHUNK_FIELDS` order."""
    return (chunk.id, version_id, document_id, space, chunk.level, chunk.index, chunk.start,
            chunk.end, chunk.tokens, list(chunk.heading_path), chunk.section_label,
            chunk.pages[0] if chunk.pages else None, chunk.pages[-1] if chunk.pages else None,
            chunk.parent_id, chunk.prev_id, chunk.next_id, text_value(chunk.text),
            text_value(chunk.retrieval_text),
            text_value(chunk.context) if chunk.context else chunk.context)


def text_value(value: str) -> str:
    # PostgreSQL text cannot hold NUL; a chunk's offsets count characters of the stored
    # Markdown, so the character is kept in place as U+FFFD rather than dropped.
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


def version_row(version: VersionRecord) -> tuple[object, ...]:
    """A version in `VERSION_COLUMNS` order."""
    return (version.id, version.document_id, version.space, version.number,
            version.fetched_sha, version.content_sha, version.markdown_sha,
            version.content_source, version.content_type,
            text_value(version.title) if version.title else version.title, version.created_at,
            version.superseded_at, json.dumps(to_json(version.metadata)),
            json.dumps(to_json(version.caller_metadata)).replace("\\u0000", "\\ufffd"),
            version.caller_version_id,
            json.dumps(list(version.diagnostics)), version.characters,
            blocks_json(version.blocks), version.near_duplicate_of,
            version.near_duplicate_similarity,
            json.dumps(to_json(version.enrichment)) if version.enrichment else None)


def to_json(value: object) -> object:
    """Frozen mappings and tuples as the plain values `json.dumps` takes."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset)):
        return [to_json(v) for v in value]
    return value


def blocks_json(blocks: Sequence[BlockRow]) -> str:
    return json.dumps([[b.kind, b.start, b.end, b.level, b.label, list(b.pages)]
                       for b in blocks], separators=(",", ":"))


def version_from_row(row: Sequence[Any]) -> VersionRecord:
    caller = row[13] if isinstance(row[13], dict) else json.loads(row[13])
    return VersionRecord(
        id=row[0], document_id=row[1], space=row[2], number=int(row[3]), fetched_sha=row[4],
        content_sha=row[5], markdown_sha=row[6], content_source=row[7], content_type=row[8],
        title=row[9], created_at=row[10], superseded_at=row[11],
        metadata=json.loads(row[12]), caller_metadata=caller, caller_version_id=row[14],
        diagnostics=tuple(json.loads(row[15])), characters=int(row[16]),
        blocks=tuple(BlockRow(kind=k, start=s, end=e, level=lv, label=lb, pages=tuple(p))
                     for k, s, e, lv, lb, p in json.loads(row[17])),
        near_duplicate_of=row[18], near_duplicate_similarity=row[19],
        enrichment=json.loads(row[20]) if row[20] else None)


async def documents_by_id(c: Connection, ids: Sequence[str]) -> list[DocumentRecord]:
    """The documents with these ids, in the order given (unknown ids left out): three
    queries, one per table, whatever the number of documents."""
    if not ids:
        return []
    heads = {r[0]: r for r in await (await c.execute(
        "SELECT id, space, current_version, caller_source_id, created_at, updated_at "
        "FROM documents WHERE id = ANY(%s)", (list(ids),))).fetchall()}
    versions: dict[str, list[VersionRecord]] = {}
    for row in await (await c.execute(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE document_id = ANY(%s) "
            "ORDER BY document_id, number", (list(heads),))).fetchall():
        versions.setdefault(row[1], []).append(version_from_row(row))
    sources: dict[str, list[SourceRecord]] = {}
    for row in await (await c.execute(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE document_id = ANY(%s) "
            "ORDER BY seen_at, key", (list(heads),))).fetchall():
        sources.setdefault(row[3], []).append(source_from_row(row))
    found = []
    for document_id in ids:
        head = heads.get(document_id)
        if head is None:
            continue
        history = tuple(versions.get(document_id, ()))
        current = next((v for v in history if v.id == head[2]), None)
        if current is None:
            raise SheafError(ErrorKind.CORRUPT, f"document {document_id} has no row for its "
                             f"current version {head[2]}; the store is damaged")
        found.append(DocumentRecord(
            id=head[0], space=head[1], title=current.title, current=current,
            sources=tuple(sources.get(document_id, ())), versions=history,
            caller_source_id=head[3], created_at=head[4], updated_at=head[5]))
    return found
