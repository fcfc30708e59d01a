"""Vectors in the DuckDB store: one table per dimension (`vectors_<dim>`: `FLOAT[dim]` is
a fixed-size type), each space's model in `embedding_models`."""

from __future__ import annotations

import json
from collections.abc import Sequence

import duckdb

from ....domain.search.embeddings import ChunkVectors, EmbeddingModel


def vector_text(vector: Sequence[float]) -> str:
    """A vector as SQL text, cast to `FLOAT[dim]` where it is used: a bound list of
    floats costs milliseconds a call."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def embedding_model(c: duckdb.DuckDBPyConnection, space: str) -> EmbeddingModel | None:
    """The model of the space's vectors; None before any were stored."""
    row = c.execute("SELECT model, dimension FROM embedding_models WHERE space = ?",
                    [space]).fetchone()
    return EmbeddingModel(str(row[0]), int(row[1])) if row else None


def has_vectors(c: duckdb.DuckDBPyConnection, dimension: int) -> bool:
    """Whether the table of vectors of this dimension exists yet."""
    return bool(c.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                          [f"vectors_{dimension}"]).fetchone()[0])  # type: ignore[index]


def delete_vectors(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Delete the vectors whose `column` is `value`, in the table of every dimension."""
    for (table,) in c.execute("SELECT table_name FROM information_schema.tables WHERE "
                              "table_name LIKE 'vectors\\_%' ESCAPE '\\'").fetchall():
        c.execute(f"DELETE FROM {table} WHERE {column} = ?", [value])


def insert_vectors(c: duckdb.DuckDBPyConnection, space: str, version_id: str,
                   document_id: str, vectors: ChunkVectors) -> None:
    """Store a version's vectors; refused when the space's vectors come from another
    model (the first vectors of a space make their model the space's)."""
    insert_vectors_of(c, [(space, version_id, document_id, vectors)])


def insert_vectors_of(c: duckdb.DuckDBPyConnection,
                      versions: Sequence[tuple[str, str, str, ChunkVectors]]) -> None:
    """`insert_vectors` of many (space, version id, document id, vectors): one statement
    per dimension for all of them."""
    models: dict[str, EmbeddingModel] = {}
    for space, _, _, vectors in versions:
        model = vectors.model
        if space in models:
            model.require_same(models[space], space)
            continue
        model.require_same(embedding_model(c, space), space)
        c.execute("INSERT OR IGNORE INTO embedding_models VALUES (?, ?, ?)",
                  [space, model.name, model.dimension])
        models[space] = model
    by_dimension: dict[int, list[dict[str, object]]] = {}
    for space, version_id, document_id, vectors in versions:
        by_dimension.setdefault(vectors.model.dimension, []).extend(
            {"chunk_id": i, "version_id": version_id, "document_id": document_id,
             "space": space, "vector": list(v)}
            for i, v in zip(vectors.chunk_ids, vectors.vectors, strict=True))
    for dimension, rows in by_dimension.items():
        if not rows:
            continue
        c.execute(f"CREATE TABLE IF NOT EXISTS vectors_{dimension} (chunk_id VARCHAR NOT "
                  "NULL, version_id VARCHAR NOT NULL, document_id VARCHAR NOT NULL, "
                  f"space VARCHAR NOT NULL, vector FLOAT[{dimension}] NOT NULL)")
        c.execute(f"INSERT INTO vectors_{dimension} SELECT r.chunk_id, r.version_id, "
                  f"r.document_id, r.space, r.vector::FLOAT[{dimension}] FROM (SELECT "
                  "unnest(from_json(?::JSON, ?), recursive := true)) AS r",
                  [json.dumps(rows), _VECTOR_SHAPE])


_VECTOR_SHAPE = json.dumps([{"chunk_id": "VARCHAR", "version_id": "VARCHAR",
                             "document_id": "VARCHAR", "space": "VARCHAR",
                             "vector": ["FLOAT"]}])
