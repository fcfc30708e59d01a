"""Typed errors as HTTP statuses and RFC 9457 problem details."""

from __future__ import annotations

import json
from http import HTTPStatus

from aiohttp import web

from sheaf.domain.errors import ErrorKind

_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID_URL: 400,
    ErrorKind.INVALID_QUERY: 400,
    ErrorKind.INPUT_NOT_FOUND: 400,
    ErrorKind.BLOCKED_ADDRESS: 403,
    ErrorKind.INGESTION_DISABLED: 403,
    ErrorKind.DOCUMENT_NOT_FOUND: 404,
    ErrorKind.QUOTE_NOT_FOUND: 404,
    ErrorKind.OUT_OF_RANGE: 422,
    ErrorKind.EMBEDDING_MISMATCH: 409,
    ErrorKind.TOO_LARGE: 413,
    ErrorKind.UNSUPPORTED_CONTENT: 415,
    ErrorKind.NOT_A_PDF: 415,
    ErrorKind.EMPTY: 422,
    ErrorKind.CORRUPT: 422,
    ErrorKind.ENCRYPTED: 422,
    ErrorKind.WRONG_PASSWORD: 422,
    ErrorKind.NO_TEXT_LAYER: 422,
    ErrorKind.TOO_COMPLEX: 422,
    ErrorKind.TIMEOUT: 504,
    ErrorKind.STORE_VERSION: 500,
}


def status_of(kind: ErrorKind) -> int:
    """Upstream failures to fetch are the gateway's (502); the rest by their meaning."""
    if kind in _STATUS:
        return _STATUS[kind]
    return 502


def problem(status: int, kind: str, detail: str, *,
            headers: dict[str, str] | None = None) -> web.Response:
    """A JSON problem document carrying sheaf's error kind."""
    body = {"type": f"urn:sheaf:error:{kind}", "title": HTTPStatus(status).phrase,
            "status": status, "detail": detail, "kind": kind}
    return web.Response(status=status, text=json.dumps(body),
                        content_type="application/problem+json", headers=headers)
