"""The SSRF guard of the aiohttp adapter: every spelling of a non-public address is refused."""

from __future__ import annotations

import ipaddress

import pytest

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.guarded_resolver import GuardedResolver
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.fetching.network_policy import IPAddress, blocked_reason
from tests.adapters.static_resolver import StaticResolver
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio

DNS = StaticResolver({
    "evil.test": ["127.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "v6loop.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "rebind.test": ["93.184.216.34", "10.0.0.5"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "private.test": ["192.168.0.10"],
})

BLOCKED_URLS = [
    "http://127.0.0.1/", "http://127.1/", "http://127.0.1/", "http://0x7f.1/",
    "http://0x7f000001/", "http://2130706433/", "http://017700000001/", "http://0177.0.0.1/",
    "http://0x7f.0x0.0x0.0x1/", "http://127.255.255.254/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:ffff:7f00:1]/",
    "http://[::127.0.0.1]/", "http://localhost/", "http://localhost./", "http://LOCALHOST:8080/",
    "http://api.localhost/", "http://0.0.0.0/", "http://0/", "http://[::]/", "http://10.0.0.1/",
    "http://172.16.0.1/", "http://172.31.255.255/", "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/", "http://0xa9fea9fe/", "http://2852039166/",
    "http://100.64.0.1/", "http://100.127.255.254/", "http://224.0.0.1/",
    "http://239.255.255.250/", "http://240.0.0.1/", "http://255.255.255.255/",
    "http://[fc00::1]/", "http://[fd12:3456:789a::1]/", "http://[fe80::1]/", "http://[ff02::1]/",
    "http://[::ffff:10.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/", "http://[fec0::1]/", "http://198.18.0.1/", "http://192.0.2.1/",
    "https://127.0.0.1:8443/", "http://user:pw@127.0.0.1/", "http://evil.test/",
    "http://metadata.test/", "http://v6loop.test/", "http://mapped.test/", "http://rebind.test/",
    "http://127.0.0.1.nip.io/", "http://private.test:8080/path",
]


@pytest.mark.parametrize("url", BLOCKED_URLS)
async def test_non_public_targets_are_refused(url: str) -> None:
    async with AiohttpHttpClient(HttpSettings(total_timeout=5), resolver=DNS) as client:
        with pytest.raises(SheafError) as caught:
            await client.get(url, accept="*/*")
    assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS, caught.value


def test_there_are_at_least_forty_spellings() -> None:
    assert len(set(BLOCKED_URLS)) >= 40


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "93.184.216.34",
                                     "2606:4700:4700::1111", "2001:4860:4860::8888"])
async def test_public_addresses_pass_the_guard(address: str) -> None:
    guard = GuardedResolver(StaticResolver({"public.test": [address]}))
    results = await guard.resolve("public.test", 80)
    assert [r["host"] for r in results] == [address]
    assert blocked_reason(ipaddress.ip_address(address)) is None


async def test_a_public_url_redirecting_to_a_private_address_is_refused() -> None:
    # 127.0.0.2 plays a public host: the policy treats it as public, nothing else changes.
    public_stand_in = ipaddress.ip_address("127.0.0.2")

    def policy(address: IPAddress) -> str | None:
        return None if address == public_stand_in else blocked_reason(address)

    server = LocalServer(host="127.0.0.2")
    await server.start()
    try:
        server.redirect("/start", "http://127.0.0.1:9/secret")
        server.redirect("/via-name", "http://evil.test/admin")
        server.add("/fine", "public text", content_type="text/plain")
        resolver = StaticResolver({"public.test": ["127.0.0.2"], "evil.test": ["127.0.0.1"]})
        async with AiohttpHttpClient(HttpSettings(total_timeout=5), resolver=resolver,
                                     address_policy=policy) as client:
            ok = await client.get(f"http://public.test:{server.port}/fine", accept="*/*")
            assert ok.body == b"public text"
            for path in ("/start", "/via-name"):
                with pytest.raises(SheafError) as caught:
                    await client.get(f"http://public.test:{server.port}{path}", accept="*/*")
                assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS
    finally:
        await server.stop()


async def test_allow_private_network_opts_out(local_server: LocalServer) -> None:
    local_server.add("/local", "hello", content_type="text/plain")
    async with AiohttpHttpClient(HttpSettings(allow_private_network=True)) as client:
        assert (await client.get(local_server.url("/local"), accept="*/*")).body == b"hello"
    async with AiohttpHttpClient(HttpSettings()) as client:
        with pytest.raises(SheafError) as caught:
            await client.get(local_server.url("/local"), accept="*/*")
        assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS
