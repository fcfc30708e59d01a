"""Search filters as SQL over chunks `c` and, when a filter needs it, versions `v`."""

from __future__ import annotations

from ....domain.search.search_request import SearchFilters


def filter_sql(filters: SearchFilters) -> tuple[str, str, dict[str, object]]:
    """The join of versions `v` to chunks `c` when a filter needs it, the conditions
    (each starting with AND) and their named parameters (`filter_0`, `filter_1` ...)."""
    clauses: list[str] = []
    params: dict[str, object] = {}

    def bind(value: object) -> str:
        name = f"filter_{len(params)}"
        params[name] = value
        return f"%({name})s"

    for column, values in (("c.document_id", filters.document_ids),
                           ("c.section_label", filters.section_labels),
                           ("v.content_source", filters.content_sources)):
        if values:
            clauses.append(f"{column} = ANY({bind(sorted(values))})")
    if filters.excluded_section_labels:
        excluded = bind(sorted(filters.excluded_section_labels))
        clauses.append(f"(c.section_label IS NULL OR NOT c.section_label = ANY({excluded}))")
    for key, value in filters.metadata:
        clauses.append(f"v.caller_metadata ->> {bind(key)} = {bind(value)}")
    versions = ("JOIN versions v ON v.id = c.version_id "
                if filters.content_sources or filters.metadata else "")
    return versions, "".join(f" AND {clause}" for clause in clauses), params
