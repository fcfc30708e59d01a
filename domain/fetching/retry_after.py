"""When to try a request again: the statuses that pass, and reading a Retry-After header
(delay in seconds or an HTTP date)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Too many requests, and the gateway answers of an overloaded or restarting server."""


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """Seconds to wait, never negative; None when the header is absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())
