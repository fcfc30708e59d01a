"""Serving the MCP server: over stdio (desktop clients start it as a subprocess) or over
streamable HTTP, behind a bearer token whenever it listens beyond loopback."""

from __future__ import annotations

import hmac
import json
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import anyio
import attrs

from sheaf.entrypoints.knowledge import Knowledge
from sheaf.entrypoints.mcp.server import ServerSettings, build_server

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


@attrs.frozen
class StoreChoice:
    """Which store and space the server opens, and how it may fetch."""

    store: Path
    space: str
    embedder: str
    allow_private_network: bool = False


async def serve_stdio(choice: StoreChoice, settings: ServerSettings) -> None:
    """Serve one client on stdin and stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    async with _knowledge(choice) as knowledge:
        server = build_server(knowledge, settings)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


async def serve_http(choice: StoreChoice, settings: ServerSettings, *, host: str, port: int,
                     token: str | None) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp until interrupted."""
    import uvicorn

    async with _knowledge(choice) as knowledge:
        server = build_server(knowledge, settings)
        app: Asgi = server.streamable_http_app(host=host)
        if token:
            app = bearer_guard(app, token)
        web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                            lifespan="on"))

        async def announce() -> None:
            while not web.started:
                await anyio.sleep(0.05)
            # Only once the store is open and the port bound.
            print(f"sheaf: MCP on http://{host}:{port}/mcp over {choice.store} "
                  f"({'token required' if token else 'no token'})", file=sys.stderr,
                  flush=True)

        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await web.serve()
            group.cancel_scope.cancel()


def bearer_guard(app: Asgi, token: str) -> Asgi:
    """`app`, answering 401 to any HTTP request without `Authorization: Bearer TOKEN`."""
    expected = f"Bearer {token}".encode()
    refusal = json.dumps({"error": {"kind": "unauthorized",
                                    "message": "send Authorization: Bearer TOKEN"}}).encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = next((value for name, value in scope["headers"]
                          if name.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="sheaf"')]})
                await send({"type": "http.response.body", "body": refusal})
                return
        await app(scope, receive, send)

    return guarded


def _knowledge(choice: StoreChoice) -> Any:
    return Knowledge.open(choice.store, choice.space, embedder=choice.embedder,
                          allow_private_network=choice.allow_private_network)
