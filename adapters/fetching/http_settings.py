"""Limits and manners of sheaf's HTTP fetching."""

from __future__ import annotations

import attrs

from ...domain.store.ingestion import DEFAULT_MAX_INGEST_BYTES
from ..installation.package_version import sheaf_version

DEFAULT_MAX_BYTES = DEFAULT_MAX_INGEST_BYTES
"""The one default for fetched bodies and ingested files (a space may lower it)."""


@attrs.frozen
class HttpSettings:
    """Every limit of one HTTP client; the defaults suit fetching articles and papers."""

    max_bytes: int = DEFAULT_MAX_BYTES
    """Cap on the body, counted both as received and after decompression."""
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    """Longest silence between two reads."""
    total_timeout: float = 60.0
    """Whole fetch, redirects and retries included."""
    max_redirects: int = 5
    retries: int = 2
    backoff: float = 0.5
    """First retry delay in seconds; doubled at each further try."""
    max_retry_after: float = 30.0
    """A Retry-After longer than this is not waited for."""
    allow_private_network: bool = False
    user_agent: str = attrs.field(
        factory=lambda: f"sheaf/{sheaf_version()} (knowledge ingestion; +https://pypi.org/project/sheaf/)"
    )
    read_chunk: int = 64 * 1024
