"""The request headers a caller of the HTTP client port may add."""

from __future__ import annotations

CALLER_HEADERS = frozenset({"if-none-match", "if-modified-since", "accept-language"})
"""Validators and language: never a header that changes where or how a request goes
(Host, authorisation, cookies, encodings), which the client alone decides."""


def caller_headers(headers: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """`headers` as a mapping, once each is one a caller may set (ValueError if not:
    that is a defect in the caller, not bad input)."""
    for name, _ in headers:
        if name.lower() not in CALLER_HEADERS:
            raise ValueError(f"request header {name!r} is not one a caller may set")
    return dict(headers)
