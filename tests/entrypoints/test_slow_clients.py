"""Slow clients cannot exhaust a sheaf server (issue 30): a request head dripped one line
at a time, a body that stops, and more connections than the cap, against the HTTP API
(aiohttp, as `sheaf serve` and the store holder listen) and the MCP transport (uvicorn,
as `sheaf mcp --http` listens). The limits are small here so the test is quick; the
defaults are exercised through a real `sheaf serve` in the slow test at the end."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from aiohttp import web

from sheaf import Knowledge, Settings
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from sheaf.entrypoints.http.server_limits import ServerLimits, bound_port, listen

pytestmark = pytest.mark.anyio
LIMITS = ServerLimits(max_connections=4, header_timeout=1.0, body_idle_timeout=0.6,
                      body_timeout=3.0)
Start = Callable[[ServerLimits], Awaitable[int]]


@asynccontextmanager
async def api_server(tmp_path: Path, limits: ServerLimits) -> AsyncIterator[int]:
    async with Knowledge.open(settings=Settings(tmp_path / "kb.duckdb")) as kb:
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "up")),
                               keepalive_timeout=15)
        await runner.setup()
        assert runner.server is not None
        listening = await listen(runner.server, "127.0.0.1", 0, limits)
        try:
            yield bound_port(listening)
        finally:
            listening.close()
            await runner.cleanup()


async def _health_asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            event = (await receive())["type"]
            await send({"type": f"{event}.complete"})
            if event == "lifespan.shutdown":
                return
    more = True
    while more and scope["method"] == "POST":
        more = (await receive()).get("more_body", False)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"status": "ok"}'})


@asynccontextmanager
async def mcp_transport(limits: ServerLimits) -> AsyncIterator[int]:
    """uvicorn as `serve_http` configures it (the browser guard, the limited protocol),
    in front of a stand-in app: what is tested is the transport."""
    import uvicorn

    from sheaf.entrypoints.http.browser_requests import AllowedHosts
    from sheaf.entrypoints.mcp.browser_guard import browser_guard
    from sheaf.entrypoints.mcp.transports import limited_uvicorn_protocol

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(
        browser_guard(_health_asgi, AllowedHosts.serving("127.0.0.1")),  # type: ignore[arg-type]
        host="127.0.0.1", port=port, log_level="warning", lifespan="on",
        http=limited_uvicorn_protocol(limits)))  # type: ignore[arg-type]
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        if task.done():
            task.result()  # why it did not start
            raise AssertionError("uvicorn stopped before it started")
        await asyncio.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        await task


@pytest.fixture(params=["api", "mcp"])
async def port(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[int]:
    opened = api_server(tmp_path, LIMITS) if request.param == "api" else \
        mcp_transport(LIMITS)
    async with opened as bound:
        yield bound


async def answer(reader: asyncio.StreamReader, within: float) -> bytes:
    """Everything the server sends until it closes, or what came in `within` seconds."""
    got = b""
    with anyio.move_on_after(within):
        while chunk := await reader.read(65536):
            got += chunk
    return got


async def health(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    got = await answer(reader, 10)
    writer.close()
    return got


async def test_a_head_dripped_line_by_line_is_cut_off(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    closed_after = None
    for line in range(40):  # 8 s of lines if nothing stopped it
        await asyncio.sleep(0.2)
        if reader.at_eof() or writer.is_closing():
            break
        try:
            writer.write(b"X-Drip-%d: 1\r\n" % line)
            await writer.drain()
        except ConnectionError:
            break
        if (got := await answer(reader, 0.01)):
            assert b" 408 " in got.split(b"\r\n", 1)[0], got[:200]
            closed_after = time.monotonic() - started
            break
    writer.close()
    assert closed_after is not None and closed_after < 3.0


async def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    got = await answer(reader, 5)
    writer.close()
    assert got.startswith(b"HTTP/1.1 408 "), got[:100]


async def test_a_body_that_stops_is_cut_off(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                 b"application/json\r\nContent-Length: 1000\r\n\r\n{\"document_id\": ")
    started = time.monotonic()
    got = await answer(reader, 5)
    writer.close()
    assert got.startswith(b"HTTP/1.1 408 ") and time.monotonic() - started < 3, got[:100]


async def test_a_body_dripped_byte_by_byte_meets_its_deadline(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                 b"application/json\r\nContent-Length: 100000\r\n\r\n")
    started = time.monotonic()
    got = b""
    while time.monotonic() - started < 8 and not got:
        try:
            writer.write(b" ")
            await writer.drain()
        except ConnectionError:
            break
        got = await answer(reader, 0.3)  # each pause under the idle timeout
    writer.close()
    assert b" 408 " in got.split(b"\r\n", 1)[0], got[:100]
    assert time.monotonic() - started < LIMITS.body_timeout + 2


async def test_connections_past_the_cap_are_refused_and_the_server_recovers(port: int
                                                                            ) -> None:
    held = [await asyncio.open_connection("127.0.0.1", port)
            for _ in range(LIMITS.max_connections)]
    await asyncio.sleep(0.1)
    refused = await health(port)
    assert refused.startswith(b"HTTP/1.1 503 "), refused[:100]
    assert b"too_many_connections" in refused
    for _, writer in held:
        writer.close()
    await asyncio.sleep(0.3)
    assert (await health(port)).startswith(b"HTTP/1.1 200 ")


async def test_keep_alive_requests_are_each_timed(port: int) -> None:
    """A second request on a kept-alive connection is timed from its first byte."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first = await answer(reader, 0.8)
    assert first.startswith(b"HTTP/1.1 200 "), first[:100]
    writer.write(b"GET /v1/health HTTP/1.1\r\n")
    got = b""
    for line in range(30):
        await asyncio.sleep(0.2)
        try:
            writer.write(b"X-Drip-%d: 1\r\n" % line)
            await writer.drain()
        except ConnectionError:
            break
        if (got := await answer(reader, 0.01)):
            break
    writer.close()
    assert b" 408 " in got.split(b"\r\n", 1)[0], got[:100]


async def test_ordinary_requests_are_unaffected(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(3):  # kept alive, well within every limit
        writer.write(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        got = await answer(reader, 0.5)
        assert got.startswith(b"HTTP/1.1 200 "), got[:100]
    body = b'{"document_id": "doc_none", "text": "fox"}'
    writer.write(b"POST /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                 b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
    for byte in range(0, len(body), 8):  # slowly, never pausing long
        writer.write(body[byte:byte + 8])
        await asyncio.sleep(0.05)
    got = await answer(reader, 1.5)
    writer.close()
    assert not got.startswith(b"HTTP/1.1 408"), got[:100]


async def test_both_servers_refuse_a_rebinding_name_and_a_foreign_page(port: int
                                                                      ) -> None:
    """The one browser policy in front of both (`browser_requests`)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: attacker.example\r\n"
                 b"Connection: close\r\n\r\n")
    assert (await answer(reader, 5)).startswith(b"HTTP/1.1 421 ")
    writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: "
                 b"https://attacker.example\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
    assert (await answer(reader, 5)).startswith(b"HTTP/1.1 403 ")
    writer.close()


@pytest.mark.slow
def test_sheaf_serve_outlasts_a_slowloris_with_its_defaults(tmp_path: Path) -> None:
    """The real command with its default limits: 400 connections dripping a header line
    every 2 s. Past 256 they are refused at once, each is cut off within the 10 s head
    timeout, and health answers throughout."""
    sheaf = str(Path(sys.executable).with_name("sheaf"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    server = subprocess.Popen([sheaf, "serve", "--port", str(free), "--store",
                               str(tmp_path / "kb.duckdb")], stderr=subprocess.PIPE)
    try:
        assert server.stderr is not None
        assert b"serving" in server.stderr.readline()
        asyncio.run(_slowloris(free))
    finally:
        server.terminate()
        server.wait(30)


async def _slowloris(port: int) -> None:
    opened = []
    for _ in range(400):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        opened.append((reader, writer))
    started = time.monotonic()
    ended: dict[int, tuple[float, bytes]] = {}  # by connection: when, and the status line
    while len(ended) < len(opened) and time.monotonic() - started < 16:
        await asyncio.sleep(1)
        for number, (reader, writer) in enumerate(opened):
            if number in ended:
                continue
            got = b"?"
            with anyio.move_on_after(0.001):
                try:
                    got = await reader.read(200)
                except ConnectionError:
                    got = b""
            if got == b"?":  # still open: one more header line
                writer.write(b"X-Drip: 1\r\n")
                continue
            ended[number] = (time.monotonic() - started, got.split(b"\r\n", 1)[0])
            writer.close()
    for _, writer in opened:
        writer.close()
    refused = [when for when, status in ended.values() if b" 503 " in status]
    cut = [when for when, status in ended.values() if b" 408 " in status]
    assert len(ended) == len(opened), f"{len(opened) - len(ended)} still held after 16 s"
    assert len(refused) >= 400 - 256 and max(refused) < 3, (len(refused), len(cut))
    assert cut and max(cut) < 13, (len(refused), len(cut))
    assert (await health(port)).startswith(b"HTTP/1.1 200 ")
