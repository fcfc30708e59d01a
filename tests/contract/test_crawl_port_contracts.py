"""The LinkReader and PageRenderer contracts, against the fakes and the real adapters
(the renderer's where Chromium is installed)."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.html.html5lib_link_reader import Html5libLinkReader
from sheaf.adapters.html.memory_link_reader import MemoryLinkReader
from sheaf.adapters.rendering.chromium_renderer import ChromiumRenderer, find_chromium
from sheaf.adapters.rendering.memory_renderer import MemoryRenderer
from sheaf.application.ports.http_client import HttpResponse
from sheaf.application.ports.link_reader import LinkReader, PageLinks
from sheaf.application.ports.page_renderer import PageRenderer
from sheaf.domain.fetching.network_policy import IPAddress, blocked_reason
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio
PAGE = (b'<html><head><base href="https://a.org/docs/"><link rel="next" href="p2">'
        b'<meta name="robots" content="noindex"></head><body><nav><a href="intro">Intro'
        b'</a><a href="/api#search">API</a><a href="intro">again</a></nav>'
        b'<a href="mailto:x@a.org">mail</a><a href="secret" rel="nofollow">s</a>'
        b'<map><area href="https://b.org/x"></map></body></html>')
LINKS = PageLinks(("https://a.org/docs/p2", "https://a.org/docs/intro",
                   "https://a.org/api", "https://b.org/x"), noindex=True)


@pytest.fixture(params=["memory", "html5lib"])
def links(request: pytest.FixtureRequest) -> LinkReader:
    if request.param == "html5lib":
        return Html5libLinkReader()
    fake = MemoryLinkReader()
    fake.add(PAGE, LINKS)
    return fake


def test_links_are_absolute_unique_and_followable(links: LinkReader) -> None:
    assert links.read(PAGE, url="https://a.org/docs/index") == LINKS


def test_a_page_without_links_links_nowhere(links: LinkReader) -> None:
    assert links.read(b"<html><body><p>none</p></body></html>",
                      url="https://a.org/") == PageLinks()


SHELL = (b'<html><body><div id="root"></div><script>document.getElementById("root")'
         b'.innerHTML = "<p>Drawn by script.</p>";</script></body></html>')
DRAWN = b"<html><body><div id='root'><p>Drawn by script.</p></div></body></html>"


def only_loopback_one(address: IPAddress) -> str | None:
    return None if address == ipaddress.ip_address("127.0.0.1") else blocked_reason(address)


@pytest.fixture(params=["memory", "chromium"])
async def renderer(request: pytest.FixtureRequest,
                   local_server: LocalServer) -> AsyncIterator[tuple[PageRenderer, str]]:
    url = local_server.url("/shell")
    local_server.add("/shell", SHELL, content_type="text/html")
    if request.param == "memory":
        fake = MemoryRenderer()
        fake.add(url, DRAWN)
        yield fake, url
        return
    if find_chromium() is None:
        pytest.skip("Chromium is not installed")
    client = AiohttpHttpClient(HttpSettings(retries=0), address_policy=only_loopback_one)
    chromium = ChromiumRenderer(client)
    try:
        yield chromium, url
    finally:
        await chromium.aclose()
        await client.aclose()


async def test_a_rendered_page_holds_what_its_scripts_drew(
        renderer: tuple[PageRenderer, str]) -> None:
    port, url = renderer
    page = await port.render(HttpResponse(url, 200, (("Content-Type", "text/html"),), SHELL))
    assert b"<p>Drawn by script.</p>" in page.html
    assert page.url == url
