"""`sheaf serve` driven by a web page (issue 30): what a page can send without a CORS
preflight, or with its name re-pointed at loopback (DNS rebinding), is refused before it
reads or changes anything; clients that are not browsers are unaffected."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st

from sheaf import Knowledge, Settings
from sheaf.entrypoints.http.http_api import ApiSettings, build_app

pytestmark = pytest.mark.anyio
NOTE = b"# Field notes\n\nFoxes wait for people to sleep.\n"


class Served:
    def __init__(self, port: int, session: aiohttp.ClientSession, kb: Knowledge,
                 store: Path) -> None:
        self.port, self.session, self.kb, self.store = port, session, kb, store
        self.base = f"http://127.0.0.1:{port}"

    async def answer(self, method: str, path: str, **options: object
                     ) -> tuple[int, dict[str, object]]:
        async with self.session.request(method, self.base + path,
                                        **options) as response:  # type: ignore[arg-type]
            text = await response.text()
            return response.status, (json.loads(text) if text.startswith("{") else {})


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    """The API as `sheaf serve` runs it on loopback without a token."""
    async with Knowledge.open(settings=Settings(tmp_path / "kb.duckdb")) as kb:
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "uploads")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        async with aiohttp.ClientSession() as session:
            yield Served(port, session, kb, tmp_path / "kb.duckdb")
        await runner.cleanup()


def upload() -> aiohttp.FormData:
    form = aiohttp.FormData()
    form.add_field("file", NOTE, filename="notes.md", content_type="text/markdown")
    return form


async def test_a_rebinding_page_is_refused_421_on_every_route(served: Served) -> None:
    await served.kb.ingest(str(Path(__file__)))  # something to leak
    for host in ("attacker.example", "attacker.example:8080", "evil.test.",
                 "127.0.0.1.nip.io", "localhost.attacker.example", "[::ffff:7f00:1]x",
                 "10.0.0.5:80", ""):
        for method, path in (("GET", "/v1/documents"), ("GET", "/v1/health"),
                             ("GET", "/openapi.json"), ("GET", "/v1/search?q=fox"),
                             ("DELETE", "/v1/documents/doc_x")):
            status, body = await served.answer(method, path, headers={"Host": host})
            assert status == 421, (host, path, status)
            assert body["kind"] == "misdirected_request"
    assert len(await served.kb.documents()) == 1


async def test_the_names_of_loopback_are_answered(served: Served) -> None:
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}", "127.0.0.1",
                 "LOCALHOST", f"127.1.2.3:{served.port}", f"[::1]:{served.port}"):
        status, _ = await served.answer("GET", "/v1/documents", headers={"Host": host})
        assert status == 200, host


async def test_a_text_plain_json_body_is_not_acted_on(served: Served) -> None:
    """What a page sends anywhere without a preflight: text/plain, a form encoding."""
    body = json.dumps({"url": "https://example.org/"})
    for content_type in ("text/plain", "text/plain;charset=UTF-8",
                         "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        status, answer = await served.answer("POST", "/v1/documents", data=body.encode(),
                                             headers=headers)
        assert status == 415 and answer["kind"] == "unsupported_media_type", content_type
        status, answer = await served.answer(
            "POST", "/v1/quote", headers=headers,
            data=json.dumps({"document_id": "doc_x", "text": "fox"}).encode())
        assert status == 415, content_type
    assert await served.kb.documents() == []


async def test_a_cross_site_upload_is_not_stored(served: Served) -> None:
    for origin in ("https://attacker.example", "null", "http://127.0.0.1.attacker.example",
                   f"http://attacker.example:{served.port}", "file://", "garbage"):
        status, answer = await served.answer("POST", "/v1/documents", data=upload(),
                                             headers={"Origin": origin})
        assert status == 403 and answer["kind"] == "forbidden_origin", origin
    status, _ = await served.answer("POST", "/v1/documents", data=upload(),
                                    headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403
    assert await served.kb.documents() == []
    assert not [p for p in (served.store.parent / "uploads").rglob("*")
                if p.is_file()]


async def test_a_foreign_origin_cannot_read_either(served: Served) -> None:
    status, _ = await served.answer("GET", "/v1/documents",
                                    headers={"Origin": "https://attacker.example"})
    assert status == 403


async def test_the_servers_own_page_and_plain_clients_are_answered(served: Served) -> None:
    status, created = await served.answer(
        "POST", "/v1/documents", data=upload(),
        headers={"Origin": f"http://localhost:{served.port}",
                 "Sec-Fetch-Site": "same-origin"})
    assert status == 201 and created["status"] == "new"
    status, _ = await served.answer("POST", "/v1/quote", json={
        "document_id": created["document_id"], "text": "foxes wait"})
    assert status == 200
    status, _ = await served.answer(
        "POST", "/v1/quote", headers={"Content-Type": "application/json; charset=utf-8"},
        data=json.dumps({"document_id": created["document_id"], "text": "foxes wait"}))
    assert status == 200


async def test_health_without_a_token_names_no_absolute_path(served: Served) -> None:
    status, body = await served.answer("GET", "/v1/health")
    assert status == 200 and body["status"] == "ok"
    store = served.store
    assert str(store.parent) not in json.dumps(body)
    assert body["store"] == store.name


async def test_health_names_the_path_to_a_client_with_the_token(tmp_path: Path) -> None:
    async with Knowledge.open(settings=Settings(tmp_path / "kb.duckdb")) as kb:
        runner = web.AppRunner(build_app(kb, ApiSettings(token="t0k")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1/health"
        try:
            async with aiohttp.ClientSession() as session:
                async with session.get(url) as response:
                    assert str(tmp_path) not in await response.text()
                async with session.get(url, headers={"Authorization": "Bearer t0k"}) as r:
                    assert str(tmp_path / "kb.duckdb") in (await r.json())["store"]
        finally:
            await runner.cleanup()


_LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)


@given(labels=st.lists(_LABEL, min_size=1, max_size=4),
       port=st.none() | st.integers(1, 65535))
def test_every_name_that_is_not_loopback_is_refused(labels: list[str], port: int | None
                                                    ) -> None:
    from sheaf.entrypoints.http.browser_requests import (
        AllowedHosts,
        is_loopback_name,
        refusal_of,
    )

    name = ".".join(labels)
    host = name if port is None else f"{name}:{port}"
    allowed = AllowedHosts.serving("127.0.0.1")
    refused = refusal_of(allowed, method="GET", host=host, origin=None, fetch_site=None)
    assert (refused is None) == is_loopback_name(name)
    origin = refusal_of(allowed, method="POST", host="127.0.0.1:8080",
                        origin=f"https://{host}", fetch_site=None)
    assert (origin is None) == is_loopback_name(name)
