"""The HttpClient contract, run against the in-memory fake and the aiohttp adapter alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

import attrs
import pytest
from aiohttp import web

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.application.ports.http_client import HttpClient
from sheaf.domain.errors import ErrorKind, SheafError
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio
SETTINGS = HttpSettings(max_bytes=10_000, allow_private_network=True, total_timeout=10,
                        backoff=0.01)


class Harness(Protocol):
    def url(self, path: str) -> str: ...
    def add(self, path: str, body: bytes | str = b"", *, status: int = 200,
            content_type: str | None = None, headers: dict[str, str] | None = None) -> None: ...
    def redirect(self, path: str, to: str, status: int = 302) -> None: ...
    def client(self, settings: HttpSettings = SETTINGS) -> HttpClient: ...
    def accepts(self) -> list[str]: ...
    def add_validated(self, path: str, body: str, etag: str) -> None: ...


class FakeHarness:
    base = "http://fixture.test"

    def __init__(self) -> None:
        self._fakes: list[MemoryHttpClient] = []
        self._routes: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, body: bytes | str = b"", **kwargs: object) -> None:
        self._routes.append(("add", (self.url(path), body), kwargs))

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        self._routes.append(("redirect", (self.url(path), to), {"status": status}))

    def client(self, settings: HttpSettings = SETTINGS) -> HttpClient:
        fake = MemoryHttpClient(settings)
        for verb, args, kwargs in self._routes:
            getattr(fake, verb)(*args, **kwargs)
        self._fakes.append(fake)
        return fake

    def accepts(self) -> list[str]:
        return [r.accept for fake in self._fakes for r in fake.requests]

    def add_validated(self, path: str, body: str, etag: str) -> None:
        self.add(path, body, content_type="text/plain", headers={"ETag": etag})


@attrs.define
class ServerHarness:
    server: LocalServer
    clients: list[AiohttpHttpClient] = attrs.field(factory=list)

    def url(self, path: str) -> str:
        return self.server.url(path)

    def add(self, path: str, body: bytes | str = b"", **kwargs: object) -> None:
        self.server.add(path, body, **kwargs)  # type: ignore[arg-type]

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        self.server.redirect(path, to, status)

    def client(self, settings: HttpSettings = SETTINGS) -> HttpClient:
        client = AiohttpHttpClient(settings)
        self.clients.append(client)
        return client

    def accepts(self) -> list[str]:
        return [headers.get("Accept", "") for _, headers in self.server.seen]

    def add_validated(self, path: str, body: str, etag: str) -> None:
        async def handler(request: web.Request) -> web.StreamResponse:
            if request.headers.get("If-None-Match") == etag:
                return web.Response(status=304, headers={"ETag": etag})
            return web.Response(text=body, headers={"ETag": etag})

        self.server.route(path, handler)


@pytest.fixture(params=["fake", "aiohttp"])
async def harness(request: pytest.FixtureRequest,
                  local_server: LocalServer) -> AsyncIterator[Harness]:
    if request.param == "fake":
        yield FakeHarness()
        return
    server_harness = ServerHarness(local_server)
    yield server_harness
    for client in server_harness.clients:
        await client.aclose()


async def test_returns_status_headers_and_body(harness: Harness) -> None:
    harness.add("/page", "<html>hello</html>", content_type="text/html; charset=utf-8")
    response = await harness.client().get(harness.url("/page"), accept="text/html")
    assert response.status == 200
    assert response.body == b"<html>hello</html>"
    assert response.content_type == "text/html; charset=utf-8"
    assert response.header("CONTENT-TYPE") == response.content_type
    assert response.url == harness.url("/page")
    assert response.redirects == ()


async def test_sends_the_accept_header(harness: Harness) -> None:
    harness.add("/page", "x", content_type="text/plain")
    await harness.client().get(harness.url("/page"), accept="application/pdf, */*;q=0.1")
    assert harness.accepts() == ["application/pdf, */*;q=0.1"]


async def test_non_2xx_is_returned_not_raised(harness: Harness) -> None:
    harness.add("/gone", "bye", status=410, content_type="text/plain")
    response = await harness.client().get(harness.url("/gone"), accept="*/*")
    assert response.status == 410
    assert (await harness.client().get(harness.url("/nothing"), accept="*/*")).status == 404


async def test_follows_redirects_and_reports_them(harness: Harness) -> None:
    harness.redirect("/a", "/b", 301)
    harness.redirect("/b", harness.url("/c"), 307)
    harness.add("/c", "done", content_type="text/plain")
    response = await harness.client().get(harness.url("/a#frag"), accept="*/*")
    assert response.body == b"done"
    assert response.url == harness.url("/c")
    assert response.redirects == (harness.url("/a"), harness.url("/b"))


async def test_five_redirects_are_followed_six_are_refused(harness: Harness) -> None:
    for i in range(6):
        harness.redirect(f"/hop{i}", f"/hop{i + 1}")
    harness.add("/hop6", "end", content_type="text/plain")
    harness.add("/start", "x")
    ok = await harness.client().get(harness.url("/hop1"), accept="*/*")
    assert ok.body == b"end" and len(ok.redirects) == 5
    with pytest.raises(SheafError) as caught:
        await harness.client().get(harness.url("/hop0"), accept="*/*")
    assert caught.value.kind is ErrorKind.TOO_MANY_REDIRECTS


async def test_redirect_loop_is_detected(harness: Harness) -> None:
    harness.redirect("/loop-a", "/loop-b")
    harness.redirect("/loop-b", "/loop-a")
    with pytest.raises(SheafError) as caught:
        await harness.client().get(harness.url("/loop-a"), accept="*/*")
    assert caught.value.kind is ErrorKind.REDIRECT_LOOP


async def test_body_over_the_cap_is_too_large(harness: Harness) -> None:
    harness.add("/exact", b"x" * 10_000, content_type="application/octet-stream")
    harness.add("/over", b"x" * 10_001, content_type="application/octet-stream")
    assert len((await harness.client().get(harness.url("/exact"), accept="*/*")).body) == 10_000
    with pytest.raises(SheafError) as caught:
        await harness.client().get(harness.url("/over"), accept="*/*")
    assert caught.value.kind is ErrorKind.TOO_LARGE


@pytest.mark.parametrize("url", ["http://10.1.2.3/x", "http://169.254.169.254/latest/meta-data",
                                 "http://[::1]/", "http://localhost/"])
async def test_private_targets_are_blocked_by_default(harness: Harness, url: str) -> None:
    client = harness.client(attrs.evolve(SETTINGS, allow_private_network=False))
    with pytest.raises(SheafError) as caught:
        await client.get(url, accept="*/*")
    assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS


@pytest.mark.parametrize("url", ["ftp://example.org/file", "file:///etc/passwd", "http:///x"])
async def test_non_http_urls_are_invalid(harness: Harness, url: str) -> None:
    with pytest.raises(SheafError) as caught:
        await harness.client().get(url, accept="*/*")
    assert caught.value.kind is ErrorKind.INVALID_URL


async def test_a_validator_that_matches_is_answered_304(harness: Harness) -> None:
    harness.add_validated("/page", "same as before", '"v1"')
    client = harness.client()
    fresh = await client.get(harness.url("/page"), accept="*/*")
    assert fresh.status == 200 and fresh.header("etag") == '"v1"'
    known = await client.get(harness.url("/page"), accept="*/*",
                             headers=(("If-None-Match", '"v1"'),))
    assert known.status == 304 and known.body == b""
    stale = await client.get(harness.url("/page"), accept="*/*",
                             headers=(("If-None-Match", '"v0"'),))
    assert stale.status == 200 and stale.body == b"same as before"


async def test_headers_that_steer_the_request_are_not_the_callers(harness: Harness) -> None:
    harness.add("/page", "x", content_type="text/plain")
    for name in ("Host", "Authorization", "Cookie", "Accept-Encoding"):
        with pytest.raises(ValueError, match=name):
            await harness.client().get(harness.url("/page"), accept="*/*",
                                       headers=((name, "x"),))
