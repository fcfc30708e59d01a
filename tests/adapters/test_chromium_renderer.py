"""Headless Chromium with every request judged by sheaf: a page whose text exists only
after its scripts run is read, and every way out of the page is refused (counted on
loopback targets that must see no traffic). Skipped where Chromium is not installed;
.ci/run installs it."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import AsyncIterator
from typing import Any

import pytest

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.rendering.chromium_renderer import (
    ChromiumRenderer,
    RenderBudget,
    find_chromium,
)
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.fetching.network_policy import IPAddress, blocked_reason
from tests.adapters.static_resolver import StaticResolver
from tests.local_server import LocalServer

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed")]

SITE = "127.0.0.1"
TARGET = "127.0.0.2"  # loopback too, but judged as any private address is


def only_the_site(address: IPAddress) -> str | None:
    """The test-only rule: the site's own loopback address is fetchable, nothing else
    that sheaf refuses is."""
    return None if address == ipaddress.ip_address(SITE) else blocked_reason(address)


class Target:
    """A loopback TCP server that counts every connection it accepts (an HTTP request,
    a websocket handshake or a bare connect alike) and answers each with a secret."""

    def __init__(self) -> None:
        self.accepted = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.accepted += 1
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            writer.close()

        self._server = await asyncio.start_server(answer, TARGET, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()


@pytest.fixture
async def target() -> AsyncIterator[Target]:
    server = Target()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def renderer() -> AsyncIterator[ChromiumRenderer]:
    client = AiohttpHttpClient(HttpSettings(retries=0),
                               resolver=StaticResolver({"inside.test": [TARGET]}),
                               address_policy=only_the_site)
    renderer = ChromiumRenderer(client)
    try:
        yield renderer
    finally:
        await renderer.aclose()
        await client.aclose()


APP = """<!doctype html><html><head><title>Harbour</title>
<script src="/app.js"></script></head><body><div id="root"></div></body></html>"""
APP_JS = """
document.addEventListener('DOMContentLoaded', async () => {
  const answer = await fetch('/api/story');
  const story = await answer.json();
  const root = document.getElementById('root');
  root.innerHTML = '<article><h1>' + story.title + '</h1><p>' + story.text + '</p></article>';
});
"""
STORY = '{"title": "Gauges", "text": "The harbour gauge is read at dawn and at dusk."}'


async def test_a_page_built_by_script_is_read_after_rendering(
        local_server: LocalServer, renderer: ChromiumRenderer) -> None:
    local_server.add("/app", APP, content_type="text/html")
    local_server.add("/app.js", APP_JS, content_type="text/javascript")
    local_server.add("/api/story", STORY, content_type="application/json")
    first = await renderer._http.get(local_server.url("/app"), accept="text/html")
    page = await renderer.render(first)
    assert b"The harbour gauge is read at dawn and at dusk." in page.html
    asked = {path for path, _ in local_server.seen}
    assert {"/app.js", "/api/story"} <= asked and not page.refused
    assert page.requests == len(local_server.seen) - 1  # all but the document: by sheaf


def escape_page(target: Target) -> str:
    t = f"{TARGET}:{target.port}"
    return f"""<!doctype html><html><body><p id="out">start</p>
<iframe src="http://{t}/frame"></iframe>
<iframe src="http://inside.test:{target.port}/named"></iframe>
<img src="http://{t}/pixel.png">
<script>
  fetch('http://{t}/fetch').catch(() => null);
  fetch('/local-post', {{method: 'POST', body: 'x'}}).catch(() => null);
  const xhr = new XMLHttpRequest(); xhr.open('GET', 'http://{t}/xhr'); xhr.send();
  try {{ new WebSocket('ws://{t}/socket'); }} catch (e) {{}}
  try {{ navigator.serviceWorker.register('/sw.js'); }} catch (e) {{}}
  fetch('/to-file').catch(() => null);
  fetch('/to-target').catch(() => null);
  document.getElementById('out').textContent = 'ran';
</script></body></html>"""


async def test_every_escape_from_the_page_is_refused(
        local_server: LocalServer, target: Target, renderer: ChromiumRenderer) -> None:
    local_server.add("/escape", escape_page(target), content_type="text/html")
    local_server.redirect("/to-file", "file:///etc/passwd")
    local_server.redirect("/to-target", f"http://{TARGET}:{target.port}/redirected")
    local_server.add("/sw.js", "self.addEventListener('fetch', () => null);",
                     content_type="text/javascript")
    first = await renderer._http.get(local_server.url("/escape"), accept="text/html")
    page = await renderer.render(first)
    assert b"ran" in page.html  # the script did run
    assert target.accepted == 0  # not one connection reached the loopback target
    refused = "\n".join(page.refused)
    for path in ("/frame", "/named", "/pixel.png", "/fetch", "/xhr", "/local-post",
                 "/to-file", "/to-target"):
        assert path in refused, path
    assert all(path != "/sw.js" for path, _ in local_server.seen)
    assert all(path != "/local-post" for path, _ in local_server.seen)
    reader, writer = await asyncio.open_connection(TARGET, target.port)
    await reader.read()
    writer.close()
    assert target.accepted == 1  # the counter counts: a direct connection is seen


async def budgeted(local_server: LocalServer, html: str, budget: RenderBudget) -> Any:
    client = AiohttpHttpClient(HttpSettings(retries=0), address_policy=only_the_site)
    renderer = ChromiumRenderer(client, budget=budget)
    local_server.add("/page", html, content_type="text/html")
    try:
        first = await client.get(local_server.url("/page"), accept="text/html")
        return await renderer.render(first)
    finally:
        browser = renderer._process
        await renderer.aclose()
        await client.aclose()
        assert browser is None or browser.returncode is not None


@pytest.mark.slow  # waits out its time budget
async def test_a_page_that_never_finishes_is_killed_at_its_time_budget(
        local_server: LocalServer) -> None:
    with pytest.raises(SheafError) as caught:
        await budgeted(local_server, "<html><body><script>while (true) {}</script>"
                       "</body></html>", RenderBudget(seconds=3))
    assert caught.value.kind is ErrorKind.TIMEOUT


async def test_requests_past_the_budget_are_refused(local_server: LocalServer) -> None:
    local_server.add("/n", "1", content_type="text/plain")
    page = await budgeted(local_server, "<html><body><script>for (let i = 0; i < 40; i++)"
                          " fetch('/n?i=' + i).catch(() => null);</script></body></html>",
                          RenderBudget(requests=10))
    assert page.requests == 10
    assert sum("budget of 10 requests" in r for r in page.refused) >= 25


@pytest.mark.slow  # lets the browser grow to its memory budget
async def test_a_page_that_eats_memory_is_killed(local_server: LocalServer) -> None:
    hog = ("<html><body><script>const keep = []; setInterval(() => { for (let i = 0; "
           "i < 50; i++) keep.push(new Array(1e6).fill(i)); }, 10);</script></body></html>")
    with pytest.raises(SheafError) as caught:
        await budgeted(local_server, hog, RenderBudget(memory=400 * 2**20, seconds=20,
                                                       settle=10))
    assert caught.value.kind in (ErrorKind.TOO_COMPLEX, ErrorKind.TIMEOUT)
    assert "MiB of browser memory" in caught.value.message
