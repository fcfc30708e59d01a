"""Values written into a statement as literals rather than bound: DuckDB binds each
parameter at some cost and cannot push a bound IN list into a scan's row-group skipping,
so short lists of ids or words travel as text (about a third of the CPU of a small
statement)."""

from __future__ import annotations


def sql_text(value: str) -> str:
    """`value` as a SQL string literal (DuckDB's strings take no backslash escapes)."""
    return "'" + value.replace("'", "''") + "'"


def literal_safe(values: list[str]) -> bool:
    """Whether every value can be written as a literal (no NUL character)."""
    return not any("\x00" in v for v in values)
