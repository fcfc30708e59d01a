"""Size caps, decompression bombs, timeouts and retries against a real local server."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib

import anyio
import pytest
from aiohttp import web

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.domain.errors import ErrorKind, SheafError
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio
CAP = 1024 * 1024
SETTINGS = HttpSettings(max_bytes=CAP, allow_private_network=True, total_timeout=20,
                        backoff=0.01)


async def _fetch_error(url: str, settings: HttpSettings = SETTINGS) -> SheafError:
    async with AiohttpHttpClient(settings) as client:
        with pytest.raises(SheafError) as caught:
            await client.get(url, accept="*/*")
    return caught.value


async def test_declared_length_one_byte_over_the_cap(local_server: LocalServer) -> None:
    local_server.add("/over", b"a" * (CAP + 1), content_type="application/octet-stream")
    error = await _fetch_error(local_server.url("/over"))
    assert error.kind is ErrorKind.TOO_LARGE


async def test_streamed_body_over_the_cap_holds_at_most_cap_plus_a_buffer(
        local_server: LocalServer) -> None:
    async def endless(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        block = b"b" * 65536
        for _ in range(800):  # 50 MiB if nobody stops reading
            await response.write(block)
        return response

    local_server.route("/endless", endless)
    tracemalloc.start()
    try:
        error = await _fetch_error(local_server.url("/endless"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.kind is ErrorKind.TOO_LARGE
    # The server side of this test lives in the same process, so allow for its buffers too.
    assert peak < CAP + 4 * SETTINGS.read_chunk + 2 * 1024 * 1024, peak


async def test_one_byte_over_the_cap_without_a_length(local_server: LocalServer) -> None:
    async def chunked(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        await response.write(b"c" * CAP)
        await response.write(b"!")
        return response

    local_server.route("/chunked", chunked)
    assert (await _fetch_error(local_server.url("/chunked"))).kind is ErrorKind.TOO_LARGE


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_decompression_bomb_is_too_large(local_server: LocalServer, encoding: str) -> None:
    payload = b"\0" * (64 * CAP)
    compressed = gzip.compress(payload) if encoding == "gzip" else zlib.compress(payload)
    assert len(compressed) < CAP
    local_server.add("/bomb", compressed, content_type="text/html",
                     headers={"Content-Encoding": encoding})
    tracemalloc.start()
    try:
        error = await _fetch_error(local_server.url("/bomb"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.kind is ErrorKind.TOO_LARGE
    assert peak < 4 * CAP, peak


@pytest.mark.parametrize("encoding", ["gzip", "deflate-zlib", "deflate-raw"])
async def test_compressed_bodies_are_decoded(local_server: LocalServer, encoding: str) -> None:
    text = b"<html><body>" + b"words " * 5000 + b"</body></html>"
    if encoding == "gzip":
        data, header = gzip.compress(text), "gzip"
    elif encoding == "deflate-zlib":
        data, header = zlib.compress(text), "deflate"
    else:
        squeezer = zlib.compressobj(wbits=-15)
        data, header = squeezer.compress(text) + squeezer.flush(), "deflate"
    local_server.add("/z", data, content_type="text/html", headers={"Content-Encoding": header})
    async with AiohttpHttpClient(SETTINGS) as client:
        response = await client.get(local_server.url("/z"), accept="*/*")
    assert response.body == text


async def test_a_trickling_server_times_out_within_the_total(local_server: LocalServer) -> None:
    async def trickle(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        while True:
            await response.write(b".")
            await anyio.sleep(0.05)

    local_server.route("/trickle", trickle)
    settings = HttpSettings(allow_private_network=True, total_timeout=1.0, read_timeout=5.0)
    with anyio.fail_after(10):  # guards against a hang; the client must stop by itself
        error = await _fetch_error(local_server.url("/trickle"), settings)
    assert error.kind is ErrorKind.TIMEOUT


async def test_silent_server_hits_the_read_timeout(local_server: LocalServer) -> None:
    async def silent(request: web.Request) -> web.StreamResponse:
        await anyio.sleep(30)
        return web.Response(text="late")

    local_server.route("/silent", silent)
    settings = HttpSettings(allow_private_network=True, total_timeout=10, read_timeout=0.5)
    with anyio.fail_after(10):
        error = await _fetch_error(local_server.url("/silent"), settings)
    assert error.kind is ErrorKind.TIMEOUT


async def test_retries_on_503_then_succeeds(local_server: LocalServer) -> None:
    calls = {"n": 0}

    async def flaky(request: web.Request) -> web.StreamResponse:
        calls["n"] += 1
        if calls["n"] < 3:
            return web.Response(status=503, text="busy")
        return web.Response(text="ok", content_type="text/plain")

    local_server.route("/flaky", flaky)
    async with AiohttpHttpClient(SETTINGS) as client:
        response = await client.get(local_server.url("/flaky"), accept="*/*")
    assert (response.status, response.body, calls["n"]) == (200, b"ok", 3)


async def test_429_honours_retry_after_and_gives_up_past_the_cap(
        local_server: LocalServer) -> None:
    calls = {"short": 0, "long": 0}

    async def short(request: web.Request) -> web.StreamResponse:
        calls["short"] += 1
        if calls["short"] == 1:
            return web.Response(status=429, headers={"Retry-After": "0"})
        return web.Response(text="ok")

    async def long(request: web.Request) -> web.StreamResponse:
        calls["long"] += 1
        return web.Response(status=429, headers={"Retry-After": "3600"})

    local_server.route("/short", short)
    local_server.route("/long", long)
    async with AiohttpHttpClient(SETTINGS) as client:
        assert (await client.get(local_server.url("/short"), accept="*/*")).status == 200
        refused = await client.get(local_server.url("/long"), accept="*/*")
    assert refused.status == 429 and refused.header("retry-after") == "3600"
    assert calls == {"short": 2, "long": 1}


async def test_404_is_not_retried(local_server: LocalServer) -> None:
    async with AiohttpHttpClient(SETTINGS) as client:
        assert (await client.get(local_server.url("/absent"), accept="*/*")).status == 404
    assert len(local_server.seen) == 1


async def test_connection_refused_is_a_connection_error() -> None:
    settings = HttpSettings(allow_private_network=True, retries=1, backoff=0.01)
    error = await _fetch_error("http://127.0.0.1:9/", settings)
    assert error.kind is ErrorKind.CONNECTION


async def test_user_agent_names_sheaf(local_server: LocalServer) -> None:
    local_server.add("/ua", "x", content_type="text/plain")
    async with AiohttpHttpClient(SETTINGS) as client:
        await client.get(local_server.url("/ua"), accept="*/*")
    assert local_server.seen[0][1]["User-Agent"].startswith("sheaf/")
