"""The best snippets of a scored set, passing a search's filters: what the text and the
vector rankings of the DuckDB store share."""

from __future__ import annotations

import json

import duckdb

from ....domain.search.search_request import SearchFilters


def top_chunks(c: duckdb.DuckDBPyConnection, scores: str, score_params: list[object],
               filters: SearchFilters, limit: int) -> list[tuple[str, float]]:
    """The best `limit` snippet ids from a `scored(chunk_id, score)` CTE that holds only
    the space's snippets, passing `filters`. Chunks and versions are joined only when a
    filter needs them, and then by narrow columns: carrying text through the ranking
    cost more than the scoring."""
    joins, where, params = "", "", list[object]()
    if not filters.empty:
        versions, conditions, params = _filter_sql(filters)
        joins = f"JOIN chunks c ON c.id = s.chunk_id {versions}"
        where = "WHERE true" + conditions
    return [(str(r[0]), float(r[1])) for r in c.execute(
        f"{scores} SELECT s.chunk_id, s.score FROM scored s {joins}{where} "
        "ORDER BY s.score DESC, s.chunk_id LIMIT ?", [*score_params, *params, limit]).fetchall()]


def allowed_snippets(c: duckdb.DuckDBPyConnection, space: str, filters: SearchFilters
                     ) -> set[str]:
    """The ids of the space's snippets that pass `filters`."""
    versions, conditions, params = _filter_sql(filters)
    return {str(r[0]) for r in c.execute(
        f"SELECT c.id FROM chunks c {versions}WHERE c.space = ? AND c.level = 'snippet'"
        f"{conditions}", [space, *params]).fetchall()}


def _filter_sql(filters: SearchFilters) -> tuple[str, str, list[object]]:
    """The join of versions `v` to chunks `c` when a filter needs it, the conditions on
    them, and their parameters."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("c.document_id", filters.document_ids),
                           ("c.section_label", filters.section_labels),
                           ("v.content_source", filters.content_sources)):
        if values:
            # Lists travel as JSON text: a bound Python list costs milliseconds a call.
            clauses.append(f"{column} IN (SELECT unnest(from_json(?, '[\"VARCHAR\"]')))")
            params.append(json.dumps(sorted(values)))
    if filters.excluded_section_labels:
        clauses.append("(c.section_label IS NULL OR c.section_label NOT IN "
                       """(SELECT unnest(from_json(?, '["VARCHAR"]'))))""")
        params.append(json.dumps(sorted(filters.excluded_section_labels)))
    for key, value in filters.metadata:
        clauses.append("json_extract_string(v.caller_metadata, ?) = ?")
        params += ["$." + json.dumps(key), value]
    versions = ("JOIN versions v ON v.id = c.version_id "
                if filters.content_sources or filters.metadata else "")
    return versions, "".join(f" AND {clause}" for clause in clauses), params
