"""The MCP server over HTTP refusing what web pages send, by the same policy as the HTTP
API (`http/browser_requests.py`): a foreign `Host` 421, a foreign `Origin` 403. The SDK
checks hosts only when bound to exactly `127.0.0.1`, `localhost` or `::1`; this guard
checks them wherever the server listens, in front of the SDK's own check."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..http.browser_requests import AllowedHosts, refusal_of

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def browser_guard(app: Asgi, allowed: AllowedHosts) -> Asgi:
    """`app`, refusing HTTP requests a page on another site (or a rebinding name) made."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = refusal_of(allowed, method=str(scope.get("method", "GET")),
                                 host=_header(scope, b"host"),
                                 origin=_header(scope, b"origin"),
                                 fetch_site=_header(scope, b"sec-fetch-site"))
            if refused is not None:
                body = json.dumps({"error": {"kind": refused.kind,
                                             "message": refused.detail}}).encode()
                await send({"type": "http.response.start", "status": refused.status,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded
