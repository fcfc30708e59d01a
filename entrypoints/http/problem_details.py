"""Typed errors as HTTP statuses and RFC 9457 problem details."""

from __future__ import annotations

import json
import re
from http import HTTPStatus

from aiohttp import web

from ...domain.errors import ErrorKind

_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID_URL: 400,
    ErrorKind.INVALID_QUERY: 400,
    ErrorKind.INPUT_NOT_FOUND: 400,
    ErrorKind.BLOCKED_ADDRESS: 403,
    ErrorKind.PATH_NOT_ALLOWED: 403,
    ErrorKind.INGESTION_DISABLED: 403,
    ErrorKind.DOCUMENT_NOT_FOUND: 404,
    ErrorKind.STORE_NOT_FOUND: 404,
    ErrorKind.QUOTE_NOT_FOUND: 404,
    ErrorKind.CLAIM_NOT_VERIFIED: 404,
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
    ErrorKind.UNSAFE_CONTENT: 422,
    ErrorKind.TIMEOUT: 504,
    ErrorKind.STORE_VERSION: 500,
    ErrorKind.STORE_LOCKED: 503,
    ErrorKind.STORAGE: 503,
    ErrorKind.INTERNAL: 500,
    ErrorKind.TOO_COMPLEX: 422,
}


# An object's default repr (`<_io.BytesIO object at 0x7f...>`) and absolute paths on the
# server (uploads are spooled under the store's folder) say nothing to a client and tell
# an attacker how the server is laid out. A path is a "/" not preceded by a word
# character, ":" or "/", so URL paths (`https://host/a/b`) are left alone.
_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>")
_SERVER_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s/\[\]'\"]+/)+([^\s/\[\]'\"]+)")


def public_detail(detail: str) -> str:
    """`detail` without server paths (each reduced to its file name) or object reprs."""
    detail = _OBJECT_REPR.sub("the input", detail)
    return _SERVER_PATH.sub(lambda m: m.group(1), detail)


def status_of(kind: ErrorKind) -> int:
    """Upstream failures to fetch are the gateway's (502); the rest by their meaning."""
    if kind in _STATUS:
        return _STATUS[kind]
    return 502


def problem(status: int, kind: str, detail: str, *,
            headers: dict[str, str] | None = None, public: bool = True,
            members: dict[str, object] | None = None) -> web.Response:
    """A JSON problem document carrying sheaf's error kind; `public` details have the
    server's paths taken out (not for the store's holder answering its own user).
    `members` are extension members (RFC 9457 §3.2), such as a failed verification."""
    body = {"type": f"urn:sheaf:error:{kind}", "title": HTTPStatus(status).phrase,
            "status": status, "detail": public_detail(detail) if public else detail,
            "kind": kind, **(members or {})}
    return web.Response(status=status, text=json.dumps(body),
                        content_type="application/problem+json", headers=headers)
