"""The statements that write the DuckDB store's rows: a version with all it yields, its
chunks (and their full-text postings), sources and stored structure. Each runs on the
writer inside a unit of work's transaction."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from ....domain.errors import ErrorKind, SheafError
from ....domain.store.fingerprint_signs import FingerprintSigns, stored_float32
from ....domain.store.ingestion import SourceRef
from ....domain.values.value_codec import to_plain
from . import held_blobs, text_index
from .rows import VERSION_COLUMNS, blocks_json, to_timestamp
from .sql_literals import among
from .vector_tables import delete_vectors, insert_vectors_of

if TYPE_CHECKING:  # annotations only: a store that is only read never imports chunking
    from ....domain.analysis.chunking import Chunk
    from ....domain.store.document_analysis import StoredStructure
    from ....domain.store.version_bundle import VersionBundle

_CHUNK_FIELDS = ("id", "version_id", "document_id", "space", "level", "idx", "start_offset",
                 "end_offset", "tokens", "heading_path", "section_label", "page_first",
                 "page_last", "parent_id", "prev_id", "next_id", "text", "retrieval_text",
                 "context", "retrieval_prefix")
_CHUNK_TYPES = {"idx": "INTEGER", "start_offset": "INTEGER", "end_offset": "INTEGER",
                "tokens": "INTEGER", "page_first": "INTEGER", "page_last": "INTEGER",
                "heading_path": ["VARCHAR"]}
_CHUNK_SHAPE = json.dumps([{f: _CHUNK_TYPES.get(f, "VARCHAR") for f in _CHUNK_FIELDS}])
_STRUCTURE_SHAPE = json.dumps([{"version_id": "VARCHAR", "structure": "VARCHAR"}])
_VERSION_SHAPE = json.dumps([{
    "id": "VARCHAR", "document_id": "VARCHAR", "space": "VARCHAR", "number": "INTEGER",
    "fetched_sha": "VARCHAR", "content_sha": "VARCHAR", "markdown_sha": "VARCHAR",
    "content_source": "VARCHAR", "content_type": "VARCHAR", "title": "VARCHAR",
    "created_at": "TIMESTAMP", "metadata": "VARCHAR", "caller_metadata": "VARCHAR",
    "caller_version_id": "VARCHAR", "diagnostics": "VARCHAR", "characters": "BIGINT",
    "blocks": "VARCHAR", "near_duplicate_of": "VARCHAR",
    "near_duplicate_similarity": "DOUBLE", "enrichment": "VARCHAR"}])
_DOCUMENT_SHAPE = json.dumps([{"id": "VARCHAR", "space": "VARCHAR",
                               "current_version": "VARCHAR", "caller_source_id": "VARCHAR",
                               "at": "TIMESTAMP"}])
_FINGERPRINT_SHAPE = json.dumps([{"document_id": "VARCHAR", "space": "VARCHAR",
                                  "coordinate_gaps": ["USMALLINT"], "levels": ["SMALLINT"],
                                  "magnitudes": ["FLOAT"],
                                  "reaches": ["INTEGER"]}])
_SOURCE_SHAPE = json.dumps([{"space": "VARCHAR", "key": "VARCHAR", "kind": "VARCHAR",
                             "document_id": "VARCHAR", "fetched_sha": "VARCHAR",
                             "original": "VARCHAR", "final_url": "VARCHAR",
                             "seen_at": "TIMESTAMP"}])


def add_versions(c: duckdb.DuckDBPyConnection,
                 bundles: Sequence[tuple[VersionBundle, FingerprintSigns | None]]) -> None:
    """Store new current versions with all they yield, superseding the previous ones,
    and point their sources at them (each with the signs of its fingerprint, if it has
    one). About fifteen statements whatever their number: each table's rows of all of
    them travel as one JSON value DuckDB unnests. Per statement, not per row, was what a
    small document's write cost (ADR-0041).

    Versions of one document (or one source) are written in turn, each round holding
    one per document: a later one supersedes an earlier one as written one by one."""
    pending = list(bundles)
    while pending:
        seen: set[str] = set()
        keys: set[tuple[str, str]] = set()
        round_, later = [], []
        for item in pending:
            record, source = item[0].record, item[0].source
            key = (record.space, source.key)
            if record.document_id in seen or key in keys:
                later.append(item)
            else:
                seen.add(record.document_id)
                keys.add(key)
                round_.append(item)
        _add_round(c, round_)
        pending = later


def _add_round(c: duckdb.DuckDBPyConnection,
               bundles: Sequence[tuple[VersionBundle, FingerprintSigns | None]]) -> None:
    if not bundles:
        return
    # A document's chunks, vectors, fingerprint and index entries exist only beside its
    # row: a new document (most ingests) has none to delete, and looking for them by
    # document id scans those tables, a cost that grows with the store.
    ids = [b.record.document_id for b, _ in bundles]
    existing = {str(r[0]) for r in c.execute(
        "SELECT id FROM documents WHERE id IN (SELECT unnest(from_json(?, '[\"VARCHAR\"]')))",
        [json.dumps(ids)]).fetchall()}
    # A version id is written once (the table has no key to refuse a second row by); only
    # a stored document can have versions.
    again = [b.record.id for b, _ in bundles if b.record.document_id in existing]
    taken = c.execute("SELECT id FROM versions WHERE id IN (SELECT unnest(?::VARCHAR[]))",
                      [again]).fetchall() if again else []
    if taken:
        raise duckdb.ConstraintException(
            f"version {', '.join(sorted(str(r[0]) for r in taken))} is already stored")
    structures = [{"version_id": b.record.id, "structure": json.dumps(
        to_plain(b.structure), separators=(",", ":"))} for b, _ in bundles
        if b.structure is not None]
    if structures:  # new versions: none has a structure row yet
        c.execute("INSERT INTO version_structure SELECT r.version_id, r.structure FROM "
                  "(SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
                  [json.dumps(structures), _STRUCTURE_SHAPE])
    for document_id in sorted(existing):
        delete_vectors(c, "document_id", document_id)
        delete_chunks(c, "document_id", document_id)
    insert_chunks_of(c, [(b.record.id, b.record.document_id, b.record.space, b.chunks)
                         for b, _ in bundles], held_markdown(bundles))
    insert_vectors_of(c, [(b.record.space, b.record.id, b.record.document_id, b.vectors)
                          for b, _ in bundles if b.vectors is not None])
    _insert_fingerprints(c, bundles, existing)
    held_blobs.insert(c, [b.blobs for b, _ in bundles])
    if existing:
        c.execute("UPDATE versions SET superseded_at = v.at FROM (SELECT unnest(from_json("
                  "?::JSON, '[{\"document_id\": \"VARCHAR\", \"at\": \"TIMESTAMP\"}]'), "
                  "recursive := true)) AS v WHERE versions.document_id = v.document_id AND "
                  "versions.superseded_at IS NULL",
                  [json.dumps([{"document_id": b.record.document_id,
                                "at": _when(b.record.created_at)} for b, _ in bundles
                               if b.record.document_id in existing])])
    versions = [{"id": v.id, "document_id": v.document_id, "space": v.space,
                 "number": v.number, "fetched_sha": v.fetched_sha,
                 "content_sha": None if v.content_sha == v.fetched_sha else v.content_sha,
                 "markdown_sha": v.markdown_sha,
                 "content_source": v.content_source, "content_type": v.content_type,
                 "title": v.title, "created_at": _when(v.created_at),
                 # Only the title, which the title column holds: nothing (ADR-0050).
                 "metadata": None if v.title is not None and v.metadata == {"title": v.title}
                 else json.dumps(v.metadata),
                 "caller_metadata": json.dumps(v.caller_metadata),
                 "caller_version_id": v.caller_version_id,
                 "diagnostics": json.dumps(list(v.diagnostics)),
                 "characters": v.characters, "blocks": blocks_json(v.blocks),
                 "near_duplicate_of": v.near_duplicate_of,
                 "near_duplicate_similarity": v.near_duplicate_similarity,
                 "enrichment": json.dumps(v.enrichment) if v.enrichment else None}
                for v in (b.record for b, _ in bundles)]
    c.execute(f"INSERT INTO versions ({VERSION_COLUMNS}) SELECT r.id, r.document_id, "
              "r.space, r.number, r.fetched_sha, r.content_sha, r.markdown_sha, "
              "r.content_source, r.content_type, r.title, r.created_at, NULL, r.metadata, "
              "r.caller_metadata, r.caller_version_id, r.diagnostics, r.characters, "
              "r.blocks, r.near_duplicate_of, r.near_duplicate_similarity, r.enrichment "
              "FROM (SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
              [json.dumps(versions), _VERSION_SHAPE])
    documents = [{"id": b.record.document_id, "space": b.record.space,
                  "current_version": b.record.id, "caller_source_id": b.caller_source_id,
                  "at": _when(b.record.created_at)} for b, _ in bundles]
    # The documents found above are updated, the others added (no key to upsert by).
    if existing:
        c.execute("UPDATE documents SET current_version = r.current_version, updated_at = "
                  "r.at, caller_source_id = coalesce(r.caller_source_id, "
                  "documents.caller_source_id) FROM (SELECT unnest(from_json(?::JSON, ?), "
                  "recursive := true)) AS r WHERE documents.id = r.id",
                  [json.dumps([d for d in documents if d["id"] in existing]),
                   _DOCUMENT_SHAPE])
    if len(existing) < len(documents):
        c.execute("INSERT INTO documents SELECT r.id, r.space, r.current_version, "
                  "r.caller_source_id, r.at, r.at FROM (SELECT unnest(from_json(?::JSON, ?), "
                  "recursive := true)) AS r",
                  [json.dumps([d for d in documents if d["id"] not in existing]),
                   _DOCUMENT_SHAPE])
    upsert_sources(c, [(b.record.space, b.record.document_id, b.source, b.record.fetched_sha,
                        b.final_url, to_timestamp(b.record.created_at)) for b, _ in bundles])


def _insert_fingerprints(c: duckdb.DuckDBPyConnection,
                         bundles: Sequence[tuple[VersionBundle, FingerprintSigns | None]],
                         existing: set[str]) -> None:
    """The fingerprints of the bundles' documents, in place of those of the `existing`."""
    rows = []
    for bundle, signs in bundles:
        if bundle.fingerprint is None:
            continue
        assert signs is not None
        # Only the coordinates that are not zero, each with its signed level into the
        # fingerprint's few float32 magnitudes (what the dense FLOAT[1024] held,
        # ADR-0048); the sign bitmaps are made from them when the filter loads.
        gaps, levels, magnitudes = fingerprint_stored_form(
            stored_float32(bundle.fingerprint))
        rows.append({"document_id": bundle.record.document_id, "space": bundle.record.space,
                     "coordinate_gaps": gaps, "levels": levels, "magnitudes": magnitudes,
                     "reaches": list(signs.reaches)})
    if not rows:
        return
    reaches = len(rows[0]["reaches"])  # type: ignore[arg-type]
    replaced = [r["document_id"] for r in rows if r["document_id"] in existing]
    if replaced:
        c.execute("DELETE FROM fingerprints WHERE document_id IN (SELECT unnest(?::VARCHAR[]))",
                  [replaced])
    c.execute("INSERT INTO fingerprints (document_id, space, coordinate_gaps, "
              "levels, magnitudes, reaches) SELECT r.document_id, r.space, r.coordinate_gaps, "
              "r.levels, r.magnitudes, "
              f"r.reaches::USMALLINT[{reaches}] "
              "FROM (SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
              [json_rows(rows), _FINGERPRINT_SHAPE])


def fingerprint_stored_form(fingerprint: Sequence[float]
                            ) -> tuple[list[int], list[int], list[float]]:
    """The coordinate gaps, levels and magnitudes a fingerprint is stored as, from its
    float32 values (`fingerprint_signs.stored_float32`; read by `fingerprint_cosines`)."""
    coordinates = [i for i, x in enumerate(fingerprint) if x != 0.0]
    magnitudes = sorted({abs(fingerprint[i]) for i in coordinates})
    place = {m: n + 1 for n, m in enumerate(magnitudes)}
    levels = [place[abs(fingerprint[i])] * (1 if fingerprint[i] > 0 else -1)
              for i in coordinates]
    return stored_gaps(coordinates), levels, magnitudes


def stored_gaps(coordinates: Sequence[int]) -> list[int]:
    """The gaps a row stores for its increasing nonzero `coordinates` (the first from 0;
    `fingerprint_cosines` adds them up again)."""
    return [b - a for a, b in zip((0, *coordinates), coordinates, strict=False)]


def _when(moment: datetime) -> str:
    """A moment as JSON text a TIMESTAMP column reads (UTC, without a zone)."""
    return to_timestamp(moment).isoformat(sep=" ")


def insert_chunk_rows(c: duckdb.DuckDBPyConnection, version_id: str, document_id: str,
                      space: str, chunks: Sequence[Chunk]) -> None:
    """All chunks of a version in one statement (see `insert_chunks_of`)."""
    insert_chunks_of(c, [(version_id, document_id, space, chunks)])


def held_markdown(bundles: Sequence[tuple[VersionBundle, FingerprintSigns | None]]
                  ) -> dict[str, str]:
    """Each version's Markdown (by version id) when its bundle holds it among its blobs:
    what its sections' text can be taken from instead of being stored (ADR-0048)."""
    found: dict[str, str] = {}
    for bundle, _ in bundles:
        data = dict(bundle.blobs).get(bundle.record.markdown_sha)
        if data is not None:
            try:
                found[bundle.record.id] = data.decode("utf-8")
            except UnicodeDecodeError:  # not text: its sections keep theirs
                continue
    return found


def insert_chunks_of(c: duckdb.DuckDBPyConnection,
                     versions: Sequence[tuple[str, str, str, Sequence[Chunk]]],
                     markdown: Mapping[str, str] | None = None) -> None:
    """The chunks of (version id, document id, space, chunks) in one statement: the rows
    travel as one JSON value that DuckDB unnests, about 0.1 ms a row against about 1 ms
    a row for bound parameters; their snippets are indexed in the same way. A section
    whose text is its version's `markdown` (held in the same transaction) at its offsets
    is stored without it."""
    markdown = markdown or {}
    rows = [{"id": ch.id, "version_id": version_id, "document_id": document_id,
             "space": space, "level": ch.level, "idx": ch.index, "start_offset": ch.start,
             "end_offset": ch.end, "tokens": ch.tokens, "heading_path": list(ch.heading_path),
             "section_label": ch.section_label,
             "page_first": ch.pages[0] if ch.pages else None,
             "page_last": ch.pages[-1] if ch.pages else None, "parent_id": ch.parent_id,
             "prev_id": ch.prev_id, "next_id": ch.next_id, "context": ch.context}
            | stored_texts(ch, sections, markdown.get(version_id))
            for version_id, document_id, space, chunks in versions
            for sections in ({ch.id: ch for ch in chunks if ch.level == "section"},)
            for ch in chunks]
    if not rows:
        return
    columns = ", ".join(f"r.{f}" for f in _CHUNK_FIELDS)
    c.execute(f"INSERT INTO chunks ({', '.join(_CHUNK_FIELDS)}) SELECT {columns} FROM "
              "(SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
              [json_rows(rows), _CHUNK_SHAPE])
    text_index.index_snippets_of(c, [
        text_index.Snippet(ch.id, ch.retrieval_text, space)
        for _, _, space, chunks in versions
        for ch in chunks if ch.level == "snippet"])


def stored_texts(chunk: Chunk, sections: dict[str, Chunk], markdown: str | None = None
                 ) -> dict[str, str | None]:
    """A chunk's `text`, `retrieval_text` and `retrieval_prefix` columns: the text only
    where its section's text (a section's: its version's held `markdown`) at its offsets
    is not it, the retrieval text only where it is not the prefix followed by the text
    (ADR-0048)."""
    text: str | None = chunk.text
    parent = sections.get(chunk.parent_id) if chunk.parent_id is not None else None
    if chunk.level == "section":
        if markdown is not None and markdown[chunk.start:chunk.end] == chunk.text:
            text = None
    elif parent is not None and parent.start <= chunk.start and chunk.end <= parent.end \
            and parent.text[chunk.start - parent.start:
                                          chunk.end - parent.start] == chunk.text:
        text = None
    retrieval = chunk.retrieval_text
    if retrieval.endswith(chunk.text):
        return {"text": text, "retrieval_text": None,
                "retrieval_prefix": retrieval[:len(retrieval) - len(chunk.text)]}
    return {"text": text, "retrieval_text": retrieval, "retrieval_prefix": None}


def json_rows(rows: Sequence[object]) -> str:
    """`json.dumps(rows)`, a row at a time: one call over a large document's chunks held
    the GIL (and a server's event loop) for a quarter of a second (ADR-0037)."""
    return "[" + ",".join(map(json.dumps, rows)) + "]"


def delete_chunks(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Delete the chunks whose `column` (version_id or document_id) is `value`, and
    their entries in the full-text index."""
    text_index.unindex(c, column, value)
    c.execute(f"DELETE FROM chunks WHERE {column} = ?", [value])


def require_version(c: duckdb.DuckDBPyConnection, space: str, version_id: str) -> str:
    """The document of a version of `space`; `document_not_found` when there is none."""
    row = c.execute("SELECT document_id FROM versions WHERE id = ? AND space = ?",
                    [version_id, space]).fetchone()
    if row is None:
        raise SheafError(ErrorKind.DOCUMENT_NOT_FOUND, f"no version {version_id}")
    return str(row[0])


def save_structure(c: duckdb.DuckDBPyConnection, version_id: str,
                   structure: StoredStructure) -> None:
    """A version's structure in place of the one it had (the table has no key to replace
    by: the old row goes first)."""
    c.execute("DELETE FROM version_structure WHERE version_id = ?", [version_id])
    c.execute("INSERT INTO version_structure VALUES (?, ?)",
              [version_id, json.dumps(to_plain(structure), separators=(",", ":"))])


def upsert_source(c: duckdb.DuckDBPyConnection, space: str, document_id: str,
                  source: SourceRef, fetched_sha: str, final_url: str | None,
                  now: datetime) -> None:
    """Point a source at a document, with the bytes it gave (`now`: a `to_timestamp`)."""
    upsert_sources(c, [(space, document_id, source, fetched_sha, final_url, now)])


def upsert_sources(c: duckdb.DuckDBPyConnection,
                   sources: Sequence[tuple[str, str, SourceRef, str, str | None, datetime]]
                   ) -> None:
    """`upsert_source` of many (space, document id, source, fetched sha, final URL, now)
    in one statement; each (space, key) at most once."""
    rows = [{"space": space, "key": source.key, "kind": source.kind.value,
             "document_id": document_id, "fetched_sha": fetched_sha,
             "original": source.original, "final_url": final_url,
             "seen_at": now.isoformat(sep=" ")}
            for space, document_id, source, fetched_sha, final_url, now in sources]
    if not rows:
        return
    # Each (space, key) stored is updated and the others added: the table has no key to
    # upsert by. The stored ones are found by key (a lookup index serves it, once made).
    condition, parameters = among("key", sorted({r["key"] for r in rows}))
    stored = {(str(space), str(key)) for space, key in c.execute(
        f"SELECT space, key FROM sources WHERE {condition}", parameters).fetchall()}
    updated = [r for r in rows if (r["space"], r["key"]) in stored]
    if updated:
        c.execute("UPDATE sources SET document_id = r.document_id, fetched_sha = "
                  "r.fetched_sha, original = r.original, final_url = r.final_url, seen_at = "
                  "r.seen_at FROM (SELECT unnest(from_json(?::JSON, ?), recursive := true)) "
                  "AS r WHERE sources.space = r.space AND sources.key = r.key",
                  [json.dumps(updated), _SOURCE_SHAPE])
    added = [r for r in rows if (r["space"], r["key"]) not in stored]
    if added:
        c.execute("INSERT INTO sources SELECT r.space, r.key, r.kind, r.document_id, "
                  "r.fetched_sha, r.original, r.final_url, r.seen_at FROM (SELECT "
                  "unnest(from_json(?::JSON, ?), recursive := true)) AS r",
                  [json.dumps(added), _SOURCE_SHAPE])
