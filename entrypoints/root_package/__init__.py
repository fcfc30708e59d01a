"""sheaf: URLs, PDFs and pages turned into structured, searchable, quotable knowledge.

The public API is `sheaf.Knowledge` (see its docstring). It is imported on first use,
so `import sheaf.domain` stays free of the adapters' dependencies (ADR-0002).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sheaf.entrypoints.knowledge import IngestProgress, Knowledge

__all__ = ["IngestProgress", "Knowledge"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from sheaf.entrypoints import knowledge

        return getattr(knowledge, name)
    raise AttributeError(f"module 'sheaf' has no attribute {name!r}")
