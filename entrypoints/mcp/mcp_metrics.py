"""`GET /metrics` on `sheaf mcp --http`: the MCP endpoint's requests by method, path and
status, timed, in Prometheus's text format (`http.prometheus_metrics`), behind the same
bearer token as the rest."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..http.prometheus_metrics import CONTENT_TYPE, MetricsRegistry, process_metrics

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]
_KNOWN_PATHS = ("/mcp", "/metrics")


def metered(app: Asgi) -> Asgi:
    """`app` with its HTTP requests counted and timed, and `/metrics` answered."""
    registry = MetricsRegistry()
    process_metrics(registry, time.time())
    registry.counter("sheaf_http_requests_total", "HTTP requests by method, path and "
                                                  "status")
    registry.histogram("sheaf_http_request_seconds", "HTTP request latency by path")

    async def measured(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        path = scope.get("path", "")
        # Only known paths name a series: a scanner's random paths would make one each.
        shown = path.rstrip("/") if path.rstrip("/") in _KNOWN_PATHS else "other"
        began = time.perf_counter()
        status = [500]

        async def sending(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            if shown == "/metrics" and scope.get("method") == "GET":
                body = (await registry.render()).encode("utf-8")
                await sending({"type": "http.response.start", "status": 200,
                               "headers": [(b"content-type", CONTENT_TYPE.encode())]})
                await sending({"type": "http.response.body", "body": body})
            else:
                await app(scope, receive, sending)
        finally:
            registry.add("sheaf_http_requests_total", (
                ("method", str(scope.get("method", ""))), ("route", shown),
                ("status", str(status[0]))))
            registry.observe("sheaf_http_request_seconds", time.perf_counter() - began,
                             (("route", shown),))

    return measured
