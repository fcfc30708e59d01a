"""DuckDB extensions loaded from their PyPI packages (`duckdb-extension-<name>`): DuckDB's
extension repository is out of reach on many machines (ADR-0008)."""

from __future__ import annotations

import importlib
from pathlib import Path

import duckdb


def load_packaged_extension(c: duckdb.DuckDBPyConnection, name: str) -> bool:
    """LOAD an extension from its PyPI package; False when the package, or the binary in
    it, is not installed."""
    try:
        package = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError:
        return False
    found = next(Path(package.__file__ or "").parent.rglob(f"{name}.duckdb_extension"), None)
    if found is None:
        return False
    c.execute(f"LOAD '{found}'")
    return True
