"""Serving the MCP server: over stdio (desktop clients start it as a subprocess) or over
streamable HTTP, behind a bearer token whenever it listens beyond loopback."""

from __future__ import annotations

import hmac
import json
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio

from sheaf.entrypoints.knowledge import Knowledge
from sheaf.entrypoints.mcp.server import ServerSettings, build_server
from sheaf.entrypoints.settings import Settings

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


async def serve_stdio(settings: Settings, served: ServerSettings) -> None:
    """Serve one client on stdin and stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    async with Knowledge.open(settings=settings) as knowledge:
        server = build_server(knowledge, served)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


async def serve_http(settings: Settings, served: ServerSettings, *, host: str,
                     port: int) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp until interrupted, behind
    `settings.api_token` when there is one."""
    import uvicorn

    token = settings.api_token
    async with Knowledge.open(settings=settings) as knowledge:
        server = build_server(knowledge, served)
        app: Asgi = server.streamable_http_app(host=host)
        if token:
            app = bearer_guard(app, token)
        web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                            lifespan="on"))

        async def announce() -> None:
            while not web.started:
                await anyio.sleep(0.05)
            # Only once the store is open and the port bound (the port chosen, for 0).
            bound = next((sock.getsockname()[1] for server in web.servers
                          for sock in server.sockets), port)
            print(f"sheaf: MCP on http://{host}:{bound}/mcp over {settings.store} "
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
