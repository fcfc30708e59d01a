"""Values written into a statement as literals rather than bound: DuckDB binds each
parameter at some cost and cannot push a bound IN list into a scan's row-group skipping,
so short lists of ids or words travel as text (about a third of the CPU of a small
statement)."""

from __future__ import annotations

import json


def sql_text(value: str) -> str:
    """`value` as a SQL string literal (DuckDB's strings take no backslash escapes)."""
    return "'" + value.replace("'", "''") + "'"


def literal_safe(values: list[str]) -> bool:
    """Whether every value can be written as a literal (no NUL character)."""
    return not any("\x00" in v for v in values)


SHORT_LIST = 32
"""Up to this many values travel as literals; longer lists as one bound JSON value."""


def among(column: str, values: list[str]) -> tuple[str, list[object]]:
    """A condition that `column` is one of `values`, and its parameters: a short IN list
    of literals (a lookup index then finds them, ADR-0050), else one JSON value
    unnested (a parameter each costs more than a scan of a long list)."""
    if len(values) <= SHORT_LIST and literal_safe(values):
        return f"{column} IN ({', '.join(map(sql_text, values)) or 'NULL'})", []
    return (f"""{column} IN (SELECT unnest(from_json(?, '["VARCHAR"]')))""",
            [json.dumps(values)])
