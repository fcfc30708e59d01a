"""The stores stay split along their ports: no class of a store's modules over twelve
methods (ADR-0017), read from the source so that no optional driver is needed."""

from __future__ import annotations

import ast
from pathlib import Path

STORES = Path(__file__).resolve().parents[2] / "adapters" / "store"
MOST_METHODS = 12


def test_no_store_class_has_more_than_twelve_methods() -> None:
    sizes = {}
    for path in sorted(STORES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                methods = [item for item in node.body
                           if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)]
                sizes[f"{path.relative_to(STORES)}:{node.name}"] = len(methods)
    assert {"duckdb/knowledge_store.py:DuckDbKnowledgeStore",
            "postgres/knowledge_store.py:PostgresKnowledgeStore",
            "memory/knowledge_store.py:MemoryKnowledgeStore"} <= set(sizes)
    assert {name: size for name, size in sizes.items() if size > MOST_METHODS} == {}
