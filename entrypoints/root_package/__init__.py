"""sheaf: URLs, PDFs and pages turned into structured, searchable, quotable knowledge.

The public API is `sheaf.Knowledge` (see its docstring), the result types it returns and
the error hierarchy: every failure is a `SheafError` with a `.kind`, and an instance of
its family (`except sheaf.NotFound`). Names are imported on first use, so `import sheaf`
and `import sheaf.domain` stay free of the adapters' dependencies (ADR-0002).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sheaf.application.quotes.claim_checks import ClaimCheck, SentenceCheck
    from sheaf.application.quotes.quotes import Quote, QuoteCheck, QuoteNotVerified
    from sheaf.application.search.search import SearchHit
    from sheaf.domain.analysis.chunking import Chunk
    from sheaf.domain.analysis.sections import Section
    from sheaf.domain.document.document_location import DocumentLocation
    from sheaf.domain.errors import (
        BlockedAddress,
        ConfigurationError,
        ErrorKind,
        FetchError,
        InternalError,
        InvalidInput,
        ModelError,
        NotFound,
        SheafError,
        StoreError,
        TooLarge,
        UnsupportedContent,
    )
    from sheaf.domain.quotes.tolerances import Tolerance
    from sheaf.domain.quotes.word_alignment import Difference, DifferenceKind
    from sheaf.domain.store.ingestion import IngestResult, IngestStatus, SpacePolicy
    from sheaf.domain.store.knowledge_records import DocumentRecord, StoreStatus
    from sheaf.entrypoints.api.knowledge import Knowledge
    from sheaf.entrypoints.api.knowledge_results import IngestProgress, StoredDocument
    from sheaf.entrypoints.api.settings import Settings

_WHERE = {
    "Knowledge": "sheaf.entrypoints.api.knowledge",
    "IngestProgress": "sheaf.entrypoints.api.knowledge_results",
    "StoredDocument": "sheaf.entrypoints.api.knowledge_results",
    "Settings": "sheaf.entrypoints.api.settings",
    "IngestResult": "sheaf.domain.store.ingestion",
    "IngestStatus": "sheaf.domain.store.ingestion",
    "SpacePolicy": "sheaf.domain.store.ingestion",
    "SearchHit": "sheaf.application.search.search",
    "Quote": "sheaf.application.quotes.quotes",
    "QuoteCheck": "sheaf.application.quotes.quotes",
    "QuoteNotVerified": "sheaf.application.quotes.quotes",
    "ClaimCheck": "sheaf.application.quotes.claim_checks",
    "SentenceCheck": "sheaf.application.quotes.claim_checks",
    "Tolerance": "sheaf.domain.quotes.tolerances",
    "Difference": "sheaf.domain.quotes.word_alignment",
    "DifferenceKind": "sheaf.domain.quotes.word_alignment",
    "Section": "sheaf.domain.analysis.sections",
    "Chunk": "sheaf.domain.analysis.chunking",
    "DocumentRecord": "sheaf.domain.store.knowledge_records",
    "StoreStatus": "sheaf.domain.store.knowledge_records",
    "DocumentLocation": "sheaf.domain.document.document_location",
    **{name: "sheaf.domain.errors" for name in (
        "SheafError", "ErrorKind", "FetchError", "BlockedAddress", "TooLarge",
        "InvalidInput", "NotFound", "UnsupportedContent", "StoreError", "ModelError",
        "ConfigurationError", "InternalError")},
}
__all__ = [
    "BlockedAddress",
    "Chunk",
    "ClaimCheck",
    "ConfigurationError",
    "Difference",
    "DifferenceKind",
    "DocumentLocation",
    "DocumentRecord",
    "ErrorKind",
    "FetchError",
    "IngestProgress",
    "IngestResult",
    "IngestStatus",
    "InternalError",
    "InvalidInput",
    "Knowledge",
    "ModelError",
    "NotFound",
    "Quote",
    "QuoteCheck",
    "QuoteNotVerified",
    "SearchHit",
    "Section",
    "SentenceCheck",
    "Settings",
    "SheafError",
    "SpacePolicy",
    "StoreError",
    "StoreStatus",
    "StoredDocument",
    "Tolerance",
    "TooLarge",
    "UnsupportedContent",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'sheaf' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
