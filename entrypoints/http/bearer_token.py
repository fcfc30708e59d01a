"""Checking an `Authorization: Bearer TOKEN` header."""

from __future__ import annotations

import hmac


def bearer_matches(header: str, token: str) -> bool:
    """Whether `header` is `Bearer TOKEN`, compared in constant time. Header bytes that
    are not UTF-8 arrive as surrogates: compared, never encoded strictly (that raised,
    and a server answered 500)."""
    given = header.encode("utf-8", "surrogateescape")
    return hmac.compare_digest(given, f"Bearer {token}".encode())
