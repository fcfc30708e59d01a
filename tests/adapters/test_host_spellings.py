"""Every spelling of a non-public address is refused before any connection is attempted.

Two witnesses that nothing connected: a loopback server counting the connections it
accepts (every URL points at its port), and a hook on the connector's socket opening
that records any address aiohttp tries, loopback or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp.connector
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.guarded_resolver import GuardedConnector
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.domain.errors import ErrorKind, SheafError
from tests.adapters.host_spellings import (
    BLOCKED_IPV4,
    DIGIT_FORMS,
    DOTS,
    ipv6_forms,
    numeric_forms,
    table,
    url_for,
)
from tests.local_server import LocalServer
from tests.property_examples import examples

pytestmark = pytest.mark.anyio

REFUSED = {ErrorKind.BLOCKED_ADDRESS, ErrorKind.INVALID_URL}
# As reported in the issue; the table holds them too, with many more.
ISSUE_SPELLINGS = ["127。0。0。1", "１２７.０.０.１", "127．0．0．1", "127｡0｡0｡1", "①②⑦.⓪.⓪.①",
                   "169。254。169。254", "１６９.２５４.１６９.２５４", "10｡0｡0｡1",
                   "１９２．１６８．０．１"]


class ConnectionWitness:
    """Counts TCP connections accepted on 127.0.0.1 and socket openings by aiohttp."""

    def __init__(self) -> None:
        self.accepted = 0
        self.attempts: list[Any] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.accepted += 1
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")
            await writer.drain()
            writer.close()

        self._server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def touched(self) -> bool:
        return self.accepted > 0 or bool(self.attempts)


@pytest.fixture
async def witness(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ConnectionWitness]:
    watcher = ConnectionWitness()
    real = aiohttp.connector.aiohappyeyeballs.start_connection

    async def recording(addr_infos: Any, *args: Any, **kwargs: Any) -> Any:
        watcher.attempts.append([info[4] for info in addr_infos])
        return await real(addr_infos, *args, **kwargs)

    monkeypatch.setattr(aiohttp.connector.aiohappyeyeballs, "start_connection", recording)
    await watcher.start()
    yield watcher
    await watcher.stop()


async def refusal(client: AiohttpHttpClient, url: str) -> SheafError:
    with pytest.raises(SheafError) as caught:
        await client.get(url, accept="*/*")
    return caught.value


def test_the_table_has_at_least_150_spellings_including_the_reported_ones() -> None:
    spellings = table()
    assert len(spellings) >= 150
    assert [s for s in ISSUE_SPELLINGS if s not in spellings] == []


async def test_every_table_spelling_is_refused_without_a_connection(
        witness: ConnectionWitness) -> None:
    failures = []
    async with AiohttpHttpClient(HttpSettings(total_timeout=5, retries=0)) as client:
        for host in table():
            url = url_for(host, witness.port)
            try:
                await client.get(url, accept="*/*")
            except SheafError as exc:
                if exc.kind not in REFUSED:
                    failures.append(f"{url}: {exc}")
            else:
                failures.append(f"{url}: fetched")
    assert failures == []
    assert witness.accepted == 0 and witness.attempts == []


async def test_the_witness_sees_a_permitted_loopback_connection(
        witness: ConnectionWitness) -> None:
    # Proves the witness can fail: with the guard off, the same server is reached.
    async with AiohttpHttpClient(HttpSettings(allow_private_network=True, retries=0)) as c:
        response = await c.get(f"http://127.0.0.1:{witness.port}/", accept="*/*")
    assert response.body == b"secret"
    assert witness.accepted == 1 and len(witness.attempts) == 1


@st.composite
def blocked_spellings(draw: st.DrawFn) -> str:
    address = draw(st.sampled_from(BLOCKED_IPV4))
    shape = draw(st.sampled_from(["unicode", "numeric", "ipv6"]))
    if shape == "numeric":
        return draw(st.sampled_from(numeric_forms(address)))
    if shape == "ipv6":
        host = draw(st.sampled_from(ipv6_forms(address)))
        return host.upper() if draw(st.booleans()) else host
    out = []
    for character in address:
        if character == ".":
            out.append(draw(st.sampled_from(DOTS)))
        else:
            form = draw(st.sampled_from(["ascii", "percent", *DIGIT_FORMS]))
            if form == "ascii":
                out.append(character)
            elif form == "percent":
                out.append(f"%{ord(character):02x}")
            else:
                out.append(DIGIT_FORMS[form][int(character)])
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(DOTS)))
    return "".join(out)


@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(host=blocked_spellings())
async def test_generated_spellings_are_refused_without_a_connection(
        witness: ConnectionWitness, host: str) -> None:
    async with AiohttpHttpClient(HttpSettings(total_timeout=5, retries=0)) as client:
        error = await refusal(client, url_for(host, witness.port))
    assert error.kind in REFUSED, error
    assert not witness.touched


async def test_a_redirect_to_any_spelling_is_refused_without_a_connection(
        witness: ConnectionWitness) -> None:
    import ipaddress

    from sheaf.domain.fetching.network_policy import IPAddress, blocked_reason

    public_stand_in = ipaddress.ip_address("127.0.0.2")

    def policy(address: IPAddress) -> str | None:
        return None if address == public_stand_in else blocked_reason(address)

    server = LocalServer(host="127.0.0.2")
    await server.start()
    try:
        spellings = [*ISSUE_SPELLINGS, *table()[::7]]
        for index, host in enumerate(spellings):
            server.redirect(f"/r{index}", url_for(host, witness.port))
        async with AiohttpHttpClient(HttpSettings(total_timeout=5, retries=0),
                                     address_policy=policy) as client:
            for index, host in enumerate(spellings):
                error = await refusal(client, server.url(f"/r{index}"))
                assert error.kind in REFUSED, (host, error)
        # Only the stand-in public server was connected to, once per redirect.
        assert witness.accepted == 0
        assert all(all(address[0] == "127.0.0.2" for address in attempt)
                   for attempt in witness.attempts)
    finally:
        await server.stop()


async def test_the_connector_judges_ip_literals_that_skip_the_resolver(
        witness: ConnectionWitness) -> None:
    # The second line of defence on its own: aiohttp never calls a resolver for an IP
    # literal, so only the connector can see this address.
    async with aiohttp.ClientSession(connector=GuardedConnector()) as session:
        with pytest.raises(SheafError) as caught:
            await session.get(f"http://127.0.0.1:{witness.port}/")
    assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS
    assert not witness.touched
