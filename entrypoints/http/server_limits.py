"""What a slow or greedy client may hold of a sheaf server: its connections, and how long
a request's head and body may take to arrive.

A client sending one header line every few seconds keeps a connection (a file
descriptor) for as long as it likes; a thousand of them leave the server none. Every
sheaf server (`sheaf serve`, the store holder, `sheaf mcp --http`) is therefore built on
a protocol factory wrapped by `limited`: connections past `max_connections` are answered
503 and closed at once, a request head must be complete within `header_timeout` of its
first byte (or of the connection's start), and a request body must keep arriving (no
pause over `body_idle_timeout`) and be complete within `body_timeout`; past either the
client gets 408 and the connection is closed. The wrapper sits between the event loop
and any HTTP/1.1 protocol (aiohttp's, uvicorn's), reading only the bytes it is handed:
where a request head ends, its `Content-Length`, and when the server starts answering.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import attrs

_HEAD_END = b"\r\n\r\n"
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length[ \t]*:[ \t]*(\d{1,18})[ \t]*\r\n", re.I)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding[ \t]*:[^\r\n]*chunked", re.I)
# The longest head looked through for its end; the server refuses longer ones itself.
_MAX_HEAD_SCAN = 256 * 1024


@attrs.frozen
class ServerLimits:
    """How much of a server one client may hold, and for how long."""

    max_connections: int = 256
    """Open connections at once; the next is answered 503 and closed."""
    header_timeout: float = 10.0
    """Seconds from a request's first byte (a connection's start, for its first) until
    its head is complete."""
    body_idle_timeout: float = 30.0
    """Seconds a request body may pause."""
    body_timeout: float = 600.0
    """Seconds from a request's head to the end of its body."""


def _answer(status: int, reason: str, kind: str, detail: str) -> bytes:
    body = json.dumps({"type": f"urn:sheaf:error:{kind}", "title": reason, "status": status,
                       "detail": detail, "kind": kind}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
            + ("Retry-After: 1\r\n" if status == 503 else "") + "\r\n").encode() + body


@attrs.define
class ConnectionCount:
    """The connections open on one server (shared by the protocols it makes)."""

    open: int = 0


def limited(factory: Callable[[], asyncio.Protocol], limits: ServerLimits,
            count: ConnectionCount | None = None) -> Callable[[], asyncio.Protocol]:
    """`factory` behind `limits`: a protocol factory for `loop.create_server`."""
    shared = count if count is not None else ConnectionCount()

    def make() -> asyncio.Protocol:
        if shared.open >= limits.max_connections:
            return _Refused(limits)
        return _Limited(factory(), limits, shared)

    return make


# How long a refused connection is kept to read what its client still sends: closed
# with unread bytes, the socket is reset and the client may never see the 503.
_REFUSAL_LINGER = 1.0


class _Refused(asyncio.Protocol):
    """A connection over the cap: told so, its writing side shut, what it sends read and
    dropped, and closed within `_REFUSAL_LINGER` seconds."""

    def __init__(self, limits: ServerLimits) -> None:
        self._limits = limits

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(_answer(503, "Service Unavailable", "too_many_connections",
                                f"the server has {self._limits.max_connections} "
                                "connections open; try again shortly"))
        if transport.can_write_eof():
            transport.write_eof()
        asyncio.get_running_loop().call_later(_REFUSAL_LINGER, transport.close)

    def data_received(self, data: bytes) -> None:
        return None  # dropped: nothing of it is answered

    def eof_received(self) -> bool:
        return False  # the client is done too: close now


class _WatchedTransport:
    """The transport as the inner protocol sees it: every call passed on, a write noted
    (the server answering means the request head was read)."""

    def __init__(self, transport: asyncio.Transport, answered: Callable[[bytes], None]
                 ) -> None:
        self._transport = transport
        self._answered = answered

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._answered(bytes(data[:16]))
        self._transport.write(data)

    def writelines(self, lines: Any) -> None:
        lines = list(lines)
        if lines:
            self._answered(bytes(lines[0][:16]))
        self._transport.writelines(lines)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _Limited(asyncio.Protocol):
    """One connection: the inner protocol, with the request's head and body timed."""

    def __init__(self, inner: asyncio.Protocol, limits: ServerLimits,
                 count: ConnectionCount) -> None:
        self._inner, self._limits, self._count = inner, limits, count
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._state = "head"
        self._head = b""
        self._left: int | None = 0  # body bytes still to come; None: chunked, unknown
        self._body_deadline = 0.0
        count.open += 1
        self._counted = True

    # -- the protocol ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._arm(self._limits.header_timeout, "head")
        self._inner.connection_made(_WatchedTransport(transport, self._answered))  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        self._watch(data)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        if self._counted:
            self._counted = False
            self._count.open -= 1
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    # -- what the client sends ---------------------------------------------------------
    def _watch(self, data: bytes) -> None:
        while data:
            if self._state == "idle":  # the first byte of the next request
                self._state, self._head = "head", b""
                self._arm(self._limits.header_timeout, "head")
            if self._state == "head":
                data = self._read_head(data)
            elif self._state == "body":
                data = self._read_body(data)
            else:  # "answered": the server read the head without our seeing its end
                return

    def _read_head(self, data: bytes) -> bytes:
        start = max(0, len(self._head) - 3)
        self._head += data
        end = self._head.find(_HEAD_END, start)
        if end < 0:
            if len(self._head) > _MAX_HEAD_SCAN:  # the server refuses it; stop looking
                self._head = self._head[-3:]
            return b""
        head, rest = self._head[:end + 2], self._head[end + 4:]
        self._head = b""
        length = _CONTENT_LENGTH.search(head)
        self._left = None if _CHUNKED.search(head) else int(length.group(1)) if length else 0
        if self._left == 0:
            self._state = "idle"
            self._cancel()
            return rest
        self._state = "body"
        self._body_deadline = asyncio.get_running_loop().time() + self._limits.body_timeout
        self._arm_body()
        return rest

    def _read_body(self, data: bytes) -> bytes:
        if self._left is None:  # chunked: the body lasts until the server answers
            self._arm_body()
            return b""
        taken, rest = data[:self._left], data[self._left:]
        self._left -= len(taken)
        if self._left == 0:
            self._state = "idle"
            self._cancel()
        else:
            self._arm_body()
        return rest

    def _answered(self, first_bytes: bytes) -> None:
        if first_bytes.startswith(b"HTTP/1.1 100") or first_bytes.startswith(b"HTTP/1.0 100"):
            return  # "100 Continue": the body is yet to come
        if self._state == "head":  # the server took a head we did not see end (bare LFs)
            self._state = "answered"
            self._cancel()
        elif self._state == "body" and self._left is None:
            self._state = "idle"
            self._cancel()

    # -- timers ------------------------------------------------------------------------
    def _arm_body(self) -> None:
        loop = asyncio.get_running_loop()
        left = self._body_deadline - loop.time()
        self._arm(min(self._limits.body_idle_timeout, max(left, 0.0)), "body")

    def _arm(self, seconds: float, what: str) -> None:
        self._cancel()
        self._timer = asyncio.get_running_loop().call_later(seconds, self._expired, what)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, what: str) -> None:
        self._timer = None
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        detail = (f"the request head did not arrive within {self._limits.header_timeout:g} s"
                  if what == "head" else
                  f"the request body paused over {self._limits.body_idle_timeout:g} s or "
                  f"took over {self._limits.body_timeout:g} s")
        transport.write(_answer(408, "Request Timeout", "request_timeout", detail))
        transport.close()


async def listen(factory: Callable[[], asyncio.Protocol], host: str, port: int,
                 limits: ServerLimits) -> asyncio.Server:
    """Listen on `host:port` (0: any free port) with `factory`'s protocol behind
    `limits`; an aiohttp runner's `server` is such a factory. Closing the returned
    server stops taking connections."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(limited(factory, limits), host, port,
                                    backlog=min(limits.max_connections, 1024))


def bound_port(server: asyncio.Server) -> int:
    """The port `server` listens on (the one chosen, when asked for 0)."""
    return int(server.sockets[0].getsockname()[1])
