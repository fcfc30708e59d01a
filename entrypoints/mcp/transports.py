"""Serving the MCP server: over stdio (desktop clients start it as a subprocess) or over
streamable HTTP, behind a bearer token whenever it listens beyond loopback."""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

import anyio

from ...domain.errors import configuration_error
from ..api.knowledge import Knowledge
from ..api.settings import Settings
from ..holder.store_holder import holding
from ..http.browser_requests import AllowedHosts
from ..http.server_limits import ConnectionCount, ServerLimits, limited
from .browser_guard import browser_guard
from .mcp_metrics import metered
from .server import ServerSettings, build_server

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]
# The longest line (one JSON-RPC message) read from stdin.
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024


async def serve_stdio(settings: Settings, served: ServerSettings) -> None:
    """Serve one client on stdin and stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    # Other sheaf commands on the store run through this process meanwhile (ADR-0022).
    async with Knowledge.open(settings=settings) as knowledge, \
            holding(knowledge, settings, "sheaf mcp"):
        server = build_server(knowledge, served)
        lines = await _stdin_lines()
        async with anyio.create_task_group() as group:
            if lines is not None:  # a signal can stop only a reader it can cancel
                group.start_soon(_stop_on_signal, group.cancel_scope)
            async with stdio_server(stdin=lines) as (read, write):
                await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()


async def serve_http(settings: Settings, served: ServerSettings, *, host: str,
                     port: int, allowed_hosts: Sequence[str] = (),
                     limits: ServerLimits | None = None) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp until interrupted, behind
    `settings.api_token` when there is one, refusing pages' requests
    (`browser_guard`) and slow clients (`limits`)."""
    import uvicorn

    token = settings.api_token
    async with Knowledge.open(settings=settings) as knowledge, \
            holding(knowledge, settings, "sheaf mcp --http"):
        server = build_server(knowledge, served)
        app: Asgi = metered(server.streamable_http_app(host=host))
        if token:
            app = bearer_guard(app, token)
        app = browser_guard(app, AllowedHosts.serving(host, allowed_hosts,
                                                      token=bool(token)))
        web = uvicorn.Server(uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="on",
            http=limited_uvicorn_protocol(limits or ServerLimits()),  # type: ignore[arg-type]
            timeout_keep_alive=15))

        async def announce() -> None:
            while not web.started:
                await anyio.sleep(0.05)
            # Only once the store is open and the port bound (the port chosen, for 0).
            bound = next((sock.getsockname()[1] for server in web.servers
                          for sock in server.sockets), port)
            print(f"sheaf: MCP on http://{host}:{bound}/mcp over {settings.location} "
                  f"({'token required' if token else 'no token'})", file=sys.stderr,
                  flush=True)

        # uvicorn stops on SIGINT and SIGTERM, then raises the signal again for the
        # handler it found: a handler that ignores it lets the store close and the
        # process exit 0 rather than die before the store is closed.
        previous = {sig: signal.signal(sig, _ignored) for sig in (signal.SIGINT,
                                                                  signal.SIGTERM)}
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(announce)
                try:
                    await web.serve()
                except SystemExit:  # uvicorn's way of saying it could not bind
                    raise configuration_error(
                        "--port", f"cannot listen on {host}:{port} (in use, or an "
                        "address not on this machine)") from None
                group.cancel_scope.cancel()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def limited_uvicorn_protocol(limits: ServerLimits) -> Callable[..., asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol behind `limits` (`http/server_limits.py`): uvicorn
    makes one per connection with the arguments it passes here."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    count = ConnectionCount()

    def protocol(**given: Any) -> asyncio.Protocol:
        return limited(functools.partial(AutoHTTPProtocol, **given), limits, count)()

    return protocol


UNAUTHORIZED = -32001
"""The JSON-RPC error code of a refused token (the range JSON-RPC leaves to servers)."""


def bearer_guard(app: Asgi, token: str) -> Asgi:
    """`app`, answering 401 to any HTTP request without `Authorization: Bearer TOKEN`.

    The refusal is what an OAuth-aware client expects (RFC 6750): a `WWW-Authenticate:
    Bearer` challenge, with `error="invalid_token"` when a token was sent and was not
    the one. Its body is a JSON-RPC error, which the MCP SDK reports as it is (a bare
    401 reached its callers as "Server returned an error response")."""
    expected = f"Bearer {token}".encode()

    def refusal(given: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
        if given:
            why = ("the bearer token is not the one this server was started with "
                   "(--token or SHEAF_API_TOKEN)")
            challenge = f'Bearer realm="sheaf", error="invalid_token", ' \
                        f'error_description="{why}"'
        else:
            why = ("this server needs Authorization: Bearer TOKEN, the token it was "
                   "started with (--token or SHEAF_API_TOKEN)")
            challenge = 'Bearer realm="sheaf"'
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
            "code": UNAUTHORIZED, "message": f"unauthorized: {why}",
            "data": {"kind": "unauthorized", "message": why}}}).encode()
        return [(b"content-type", b"application/json"),
                (b"www-authenticate", challenge.encode())], body

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = next((value for name, value in scope["headers"]
                          if name.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, expected):
                headers, body = refusal(given)
                await send({"type": "http.response.start", "status": 401,
                            "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    """A client (or Ctrl-C) ending the server with a signal stops it the way closing its
    stdin does: the store is closed cleanly and the exit status is 0."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            scope.cancel()
            return


def _ignored(signum: int, frame: object) -> None:
    return None


class _PipeLines:
    """stdin as lines read by the event loop rather than by a thread, so that stopping
    the server does not wait for a line that may never come."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _PipeLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


async def _stdin_lines() -> Any:
    """stdin for the SDK's stdio transport when it is a pipe (as MCP clients start
    servers); None otherwise (a file or a terminal), for the SDK's own reader."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_MAX_MESSAGE_BYTES)
    try:
        pipe = os.fdopen(os.dup(0), "rb", buffering=0)
    except OSError:
        return None
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except (OSError, ValueError):
        pipe.close()
        return None
    return _PipeLines(reader)
