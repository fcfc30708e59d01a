"""The DuckDB store's rows and its records: the columns its queries name, in the order
they are read back, and the records (documents, versions, chunks) made from them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import duckdb

from ....domain.errors import ErrorKind, SheafError
from ....domain.store.knowledge_records import (
    BlockRow,
    DocumentRecord,
    SourceRecord,
    VersionRecord,
)
from ..store_rows import source_from_row

if TYPE_CHECKING:  # chunking is imported by the first read of chunks, not by opening
    from ....domain.analysis.chunking import Chunk

DOCUMENT_COLUMNS = "id, space, current_version, caller_source_id, created_at, updated_at"
SOURCE_COLUMNS = "space, key, kind, document_id, fetched_sha, original, final_url"
VERSION_COLUMNS = ("id, document_id, space, number, fetched_sha, content_sha, markdown_sha, "
                   "content_source, content_type, title, created_at, superseded_at, metadata, "
                   "caller_metadata, caller_version_id, diagnostics, characters, blocks, "
                   "near_duplicate_of, near_duplicate_similarity, enrichment")
CHUNK_COLUMNS = ("c.id, c.level, c.idx, c.start_offset, c.end_offset, c.text, c.tokens, "
                 "c.heading_path, c.section_label, c.page_first, c.page_last, c.parent_id, "
                 "c.prev_id, c.next_id, c.retrieval_text, c.context, c.retrieval_prefix, "
                 "c.version_id")
"""A chunk's columns, of the table as `c`, in the order `chunks_from_rows` reads them.

A chunk's text is stored once (ADR-0048): a snippet's `text` is NULL when it is its
section's text at its offsets, a section's (schema 11) when it is its version's held
Markdown at its offsets, and `retrieval_text` is NULL when it is `retrieval_prefix`
followed by the text (the `[DOC: ...]` line, or a generated context): what a search or
a quote reads is made from them by `chunks_from_rows`, in Python (the Markdown is
zlib-compressed), never in SQL."""
CHUNK_WIDTH = CHUNK_COLUMNS.count(",") + 1
"""How many columns `CHUNK_COLUMNS` reads: what a query selects after them starts here."""


def load_document(c: duckdb.DuckDBPyConnection, document_id: str) -> DocumentRecord | None:
    """A document with its versions and sources, by id; None when there is none."""
    row = c.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?",
                    [document_id]).fetchone()
    if not row:
        return None
    versions = tuple(version_from_row(r) for r in c.execute(
        f"SELECT {VERSION_COLUMNS} FROM versions WHERE document_id = ? ORDER BY number",
        [document_id]).fetchall())
    sources = tuple(source_from_row(s) for s in c.execute(
        f"SELECT {SOURCE_COLUMNS} FROM sources WHERE document_id = ? ORDER BY seen_at",
        [document_id]).fetchall())
    return document_from_row(row, versions, sources)


def document_from_row(row: Sequence[Any], versions: tuple[VersionRecord, ...],
                      sources: tuple[SourceRecord, ...]) -> DocumentRecord:
    """A document's record from its `DOCUMENT_COLUMNS` row, versions and sources."""
    document_id = row[0]
    current = next((v for v in versions if v.id == row[2]), None)
    if current is None:
        raise SheafError(ErrorKind.CORRUPT, f"document {document_id} has no row for its current "
                         f"version {row[2]}; the store is damaged")
    return DocumentRecord(id=str(row[0]), space=str(row[1]), title=current.title,
                          current=current, sources=sources, versions=versions,
                          caller_source_id=row[3], created_at=from_timestamp(row[4]),
                          updated_at=from_timestamp(row[5]))


def version_from_row(row: Sequence[Any]) -> VersionRecord:
    """A version's record from its `VERSION_COLUMNS` row."""
    return VersionRecord(
        id=row[0], document_id=row[1], space=row[2], number=int(row[3]), fetched_sha=row[4],
        # Stored only where it is not the fetched bytes' digest (ADR-0050).
        content_sha=row[4] if row[5] is None else row[5], markdown_sha=row[6],
        content_source=row[7], content_type=row[8],
        title=row[9], created_at=from_timestamp(row[10]),
        superseded_at=from_timestamp(row[11]) if row[11] else None,
        metadata=json.loads(row[12]) if row[12] is not None else {"title": row[9]},
        caller_metadata=json.loads(row[13]),
        caller_version_id=row[14], diagnostics=tuple(json.loads(row[15])),
        characters=int(row[16]), blocks=blocks_from_json(row[17]), near_duplicate_of=row[18],
        near_duplicate_similarity=row[19], enrichment=json.loads(row[20]) if row[20] else None)


def chunks_from_rows(c: duckdb.DuckDBPyConnection, rows: Sequence[Sequence[Any]],
                     sections: dict[str, tuple[int, str]] | None = None) -> list[Chunk]:
    """The chunks of `CHUNK_COLUMNS` rows, their texts made whole: a section stored
    without its text takes it from its version's held Markdown, a snippet from its
    section (id: start and text), given, among the rows, or read here."""
    sections = {**(sections or {}),
                **{r[0]: (int(r[3]), r[5]) for r in rows if r[5] is not None}}
    bare = [(str(r[0]), str(r[17]), int(r[3]), int(r[4])) for r in rows
            if r[5] is None and r[1] == "section"]
    if bare:
        sections.update(markdown_slices(c, bare))
    wanted = sorted({r[11] for r in rows if r[5] is None and r[1] != "section"
                     and r[11] not in sections})
    if wanted:
        sections.update(_section_texts(c, wanted))
    return [_chunk_from_row(r, sections) for r in rows]


def whole_chunks(c: duckdb.DuckDBPyConnection, where: str = "TRUE",
                 parameters: Sequence[object] = ()) -> list[Chunk]:
    """Every chunk of `chunks c` that `where` selects, made whole, in id order (for
    migrations, tests and benches: their texts cannot be made in SQL)."""
    return chunks_from_rows(c, c.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE "
                                         f"{where} ORDER BY c.id", list(parameters)).fetchall())


def markdown_slices(c: duckdb.DuckDBPyConnection,
                    wanted: Sequence[tuple[str, str, int, int]]) -> dict[str, tuple[int, str]]:
    """For each (chunk id, version id, start, end), the chunk's start and text: its
    version's held Markdown at its offsets."""
    from . import held_blobs
    from .sql_literals import among

    versions = sorted({w[1] for w in wanted})
    condition, parameters = among("id", versions)
    found_versions = c.execute(f"SELECT id, markdown_sha, fetched_sha FROM versions WHERE "
                               f"{condition}", parameters).fetchall()
    markdown_of = {str(r[0]): str(r[1]) for r in found_versions}
    # A Markdown file's raw bytes are often its Markdown's basis (`held_blobs.insert`).
    held = held_blobs.read_many(c, sorted(set(markdown_of.values())), "the store",
                                sorted({str(r[2]) for r in found_versions}))
    texts: dict[str, str] = {}
    found: dict[str, tuple[int, str]] = {}
    for chunk_id, version_id, start, end in wanted:
        sha = markdown_of.get(version_id)
        if sha is None or sha not in held:
            raise SheafError(ErrorKind.CORRUPT, f"chunk {chunk_id} has no text and its "
                             f"version {version_id} no held Markdown to take it from; the "
                             "store is damaged")
        if sha not in texts:
            texts[sha] = held[sha].decode("utf-8")
        found[chunk_id] = (start, texts[sha][start:end])
    return found


def _section_texts(c: duckdb.DuckDBPyConnection, ids: list[str]
                   ) -> dict[str, tuple[int, str]]:
    from .sql_literals import among

    condition, parameters = among("c.id", ids)
    rows = c.execute("SELECT c.id, c.start_offset, c.end_offset, c.text, c.version_id "
                     f"FROM chunks c WHERE {condition}", parameters).fetchall()
    sections = {str(r[0]): (int(r[1]), str(r[3])) for r in rows if r[3] is not None}
    bare = [(str(r[0]), str(r[4]), int(r[1]), int(r[2])) for r in rows if r[3] is None]
    if bare:
        sections.update(markdown_slices(c, bare))
    return sections


def _chunk_from_row(r: Sequence[Any], sections: dict[str, tuple[int, str]]) -> Chunk:
    from ....domain.analysis.chunking import Chunk  # cached after the first row

    start, end = int(r[3]), int(r[4])
    text = r[5]
    if text is None:
        source = r[0] if r[1] == "section" else r[11]
        found = sections.get(source)
        if found is None:
            raise SheafError(ErrorKind.CORRUPT, f"chunk {r[0]} has no text and its section "
                             f"{r[11]} none to take it from; the store is damaged")
        text = found[1][start - found[0]:end - found[0]]
    retrieval = r[14] if r[14] is not None else (r[16] or "") + text
    return Chunk(id=r[0], level=r[1], index=int(r[2]), start=start, end=end,
                 text=text, tokens=int(r[6]), heading_path=tuple(r[7]), section_label=r[8],
                 pages=(int(r[9]), int(r[10])) if r[9] is not None else (),
                 parent_id=r[11], prev_id=r[12], next_id=r[13], retrieval_text=retrieval,
                 context=r[15])


def blocks_json(blocks: Sequence[BlockRow]) -> str:
    """A version's blocks as its `blocks` column holds them."""
    # One text value per version: DuckDB binds parameters one by one, so a row per block
    # cost about a millisecond each, and blocks are only ever read whole.
    return json.dumps([[b.kind, b.start, b.end, b.level, b.label, list(b.pages)]
                       for b in blocks], separators=(",", ":"))


def blocks_from_json(text: str) -> tuple[BlockRow, ...]:
    return tuple(BlockRow(kind=k, start=s, end=e, level=lv, label=lb, pages=tuple(p))
                 for k, s, e, lv, lb, p in json.loads(text))


def to_timestamp(moment: datetime) -> datetime:
    """A moment as a `TIMESTAMP` column holds it: UTC, without a zone."""
    return moment.astimezone(UTC).replace(tzinfo=None)


def from_timestamp(moment: datetime) -> datetime:
    """A `TIMESTAMP` read back, as the UTC moment it was written as."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
