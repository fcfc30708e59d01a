"""The HTTP API end to end: a real server on 127.0.0.1 in front of a DuckDB store, an
upstream publisher on another loopback port; every endpoint and every error status."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import aiohttp
import anyio
import pytest
from aiohttp import web
from openapi_spec_validator import validate

from sheaf import Knowledge, Settings
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.entrypoints.http.http_api import KNOWLEDGE, SETTINGS, ApiSettings, build_app
from sheaf.entrypoints.http.openapi import openapi_document
from tests.local_server import LocalServer
from tests.pdf_writer import write_pdf

pytestmark = pytest.mark.anyio
PAGE = ("<html><head><title>Tidal Rhythms</title></head><body><article><h1>Tidal Rhythms</h1>"
        "<h2>Results</h2><p>Seagrass grew with the tides. Shoot density doubled in spring."
        "</p></article></body></html>")
TOKEN = "s3cret"


class Api:
    """A running API server and a client for it."""

    def __init__(self, url: str, session: aiohttp.ClientSession, app: web.Application) -> None:
        self.url, self.session, self.app = url, session, app

    def request(self, method: str, path: str, *, token: str | None = TOKEN,
                **options: object) -> aiohttp.client._RequestContextManager:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers |= dict(options.pop("headers", None) or {})  # type: ignore[call-overload]
        return self.session.request(method, self.url + path, headers=headers,
                                    **options)  # type: ignore[arg-type]

    async def json(self, method: str, path: str, status: int, **options: object
                   ) -> dict[str, object]:
        async with self.request(method, path, **options) as response:
            body = await response.text()
            assert response.status == status, (response.status, body)
            return json.loads(body)  # type: ignore[no-any-return]


Start = Callable[..., Awaitable[Api]]


@pytest.fixture
async def start_api(tmp_path: Path) -> AsyncIterator[Start]:
    runners: list[web.AppRunner] = []
    sessions: list[aiohttp.ClientSession] = []
    opened = AsyncExitStack()

    async def start(*, allow_private: bool = True, timeout: float = 10,
                    max_upload: int = 1_000_000, max_pending: int = 8,
                    token: str | None = TOKEN) -> Api:
        store = tmp_path / f"api{len(runners)}.duckdb"
        settings = Settings(store, fetch=HttpSettings(allow_private_network=allow_private,
                                                      total_timeout=timeout, retries=0))
        kb = await opened.enter_async_context(Knowledge.open(settings=settings))
        app = build_app(kb, ApiSettings(token=token, max_upload_bytes=max_upload,
                                              max_pending=max_pending,
                                              uploads=tmp_path / "uploads"))
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        runners.append(runner)
        session = aiohttp.ClientSession()
        sessions.append(session)
        return Api(f"http://127.0.0.1:{port}", session, app)

    yield start
    for session in sessions:
        await session.close()
    for runner in runners:
        await runner.cleanup()
    await opened.aclose()


async def test_documents_search_quote_and_removal(start_api: Start,
                                                  local_server: LocalServer) -> None:
    api = await start_api()
    local_server.add("/tides", PAGE, content_type="text/html")
    created = await api.json("POST", "/v1/documents", 201,
                             json={"url": local_server.url("/tides"),
                                   "metadata": {"team": "blue"}})
    assert created["status"] == "new" and created["title"] == "Tidal Rhythms"
    document_id = str(created["document_id"])
    again = await api.json("POST", "/v1/documents", 200,
                           json={"url": local_server.url("/tides")})
    assert again["status"] == "unchanged"

    listed = await api.json("GET", "/v1/documents", 200)
    assert [d["id"] for d in listed["documents"]] == [document_id]  # type: ignore[index]
    one = await api.json("GET", f"/v1/documents/{document_id}", 200)
    assert one["url"] == local_server.url("/tides")
    assert one["caller_metadata"] == {"team": "blue"}
    async with api.request("GET", f"/v1/documents/{document_id}/markdown") as response:
        assert response.status == 200 and response.content_type == "text/markdown"
        markdown = await response.text()
    sections = await api.json("GET", f"/v1/documents/{document_id}/sections", 200)
    assert "results" in {s["label"] for s in sections["sections"]}  # type: ignore[attr-defined]
    chunks = await api.json("GET", f"/v1/documents/{document_id}/chunks?level=snippet", 200)
    assert all(c["level"] == "snippet" for c in chunks["chunks"])  # type: ignore[attr-defined]

    found = await api.json("GET", "/v1/search?q=shoot+density&k=3&meta=team%3Dblue", 200)
    hit = found["results"][0]  # type: ignore[index]
    assert hit["title"] == "Tidal Rhythms" and markdown[hit["start"]:hit["end"]] == hit["text"]
    quoted = await api.json("POST", "/v1/quote", 200, json={
        "document_id": document_id, "text": "shoot density doubled in spring"})
    quote = quoted["quotes"][0]  # type: ignore[index]
    assert quote["text"] == "Shoot density doubled in spring"
    assert markdown[quote["start"]:quote["end"]] == quote["text"]
    first = await api.json("POST", "/v1/quote", 200, json={"document_id": document_id,
                                                           "sentence": 1})
    assert first["quotes"][0]["sentences"] == [1]  # type: ignore[index]

    removed = await api.json("DELETE", f"/v1/documents/{document_id}", 200)
    assert removed["removed"] == document_id
    await api.json("GET", f"/v1/documents/{document_id}", 404)


async def test_uploads_stream_under_the_cap(start_api: Start) -> None:
    api = await start_api(max_upload=4096)
    form = aiohttp.FormData()
    form.add_field("file", b"# Field notes\n\nFoxes wait for people to sleep.\n",
                   filename="notes.md", content_type="text/markdown")
    form.add_field("metadata", '{"team": "red"}')
    created = await api.json("POST", "/v1/documents", 201, data=form)
    assert created["title"] == "Field notes"
    form = aiohttp.FormData()
    form.add_field("file", b"# Field notes\n\nFoxes wait for people to sleep.\n",
                   filename="notes.md", content_type="text/markdown")
    assert (await api.json("POST", "/v1/documents", 200, data=form))["status"] == "unchanged"
    big = aiohttp.FormData()
    big.add_field("file", b"x" * 5000, filename="big.txt", content_type="text/plain")
    problem = await api.json("POST", "/v1/documents", 413, data=big)
    assert problem["kind"] == "too_large"
    assert not [p for p in (Path(api.app[SETTINGS].uploads)).rglob("*")
                if p.is_file() and p.stat().st_size == 5000]  # nothing half-kept


async def test_every_error_status(start_api: Start, local_server: LocalServer,
                                  tmp_path: Path) -> None:
    api = await start_api(timeout=1.5)
    local_server.add("/binary", b"\x00\x01\x02" * 100, content_type="application/zip")
    local_server.add("/broken.pdf", b"%PDF-1.7\n" + b"garbage" * 50,
                     content_type="application/pdf")
    local_server.add("/missing", "gone", status=404)
    local_server.add("/failing", "oops", status=500)

    async def slow(request: web.Request) -> web.Response:
        await anyio.sleep(5)
        return web.Response(text=PAGE, content_type="text/html")

    local_server.route("/slow", slow)

    async def status_kind(status: int, method: str, path: str, **options: object) -> str:
        body = await api.json(method, path, status, **options)
        assert body["status"] == status and body["type"] == f"urn:sheaf:error:{body['kind']}"
        return str(body["kind"])

    assert await status_kind(415, "POST", "/v1/documents", data=b"not json") == \
        "unsupported_media_type"  # not declared JSON: a page could have sent it
    assert await status_kind(400, "POST", "/v1/documents", data=b"not json", headers={
        "Content-Type": "application/json"}) == "invalid_request"
    assert await status_kind(400, "POST", "/v1/documents", json={"url": "ftp://x/y"}) == \
        "invalid_url"
    assert await status_kind(400, "GET", "/v1/search") == "invalid_request"
    assert await status_kind(400, "GET", "/v1/search?q=x&mode=magic") == "invalid_request"
    assert await status_kind(401, "GET", "/v1/documents", token=None) == "unauthorized"
    assert await status_kind(401, "GET", "/v1/documents", token="wrong") == "unauthorized"
    await api.json("GET", "/v1/health", 200, token=None)  # health needs no token
    assert await status_kind(404, "GET", "/v1/documents/doc_nothing") == "document_not_found"
    assert await status_kind(404, "GET", "/v1/nowhere") == "http_error"
    assert await status_kind(415, "POST", "/v1/documents",
                             json={"url": local_server.url("/binary")}) == \
        "unsupported_content"
    assert await status_kind(422, "POST", "/v1/documents",
                             json={"url": local_server.url("/broken.pdf")}) == "corrupt"
    assert await status_kind(502, "POST", "/v1/documents",
                             json={"url": local_server.url("/missing")}) == "not_found"
    assert await status_kind(502, "POST", "/v1/documents",
                             json={"url": local_server.url("/failing")}) == "server_error"
    assert await status_kind(504, "POST", "/v1/documents",
                             json={"url": local_server.url("/slow")}) == "timeout"
    await api.app[KNOWLEDGE].with_space("closed").set_policy(ingestion_enabled=False)
    assert await status_kind(403, "POST", "/v1/documents?space=closed",
                             json={"url": local_server.url("/binary")}) == \
        "ingestion_disabled"
    pdf = write_pdf([("h1", "Tides"), ("p", "A short paper about tides and seagrass.")])
    local_server.add("/paper.pdf", pdf, content_type="application/pdf")
    created = await api.json("POST", "/v1/documents", 201,
                             json={"url": local_server.url("/paper.pdf")})
    assert await status_kind(404, "POST", "/v1/quote", json={
        "document_id": created["document_id"], "text": "foxes raid the bins"}) == \
        "quote_not_found"
    assert await status_kind(422, "POST", "/v1/quote", json={
        "document_id": created["document_id"], "sentence": 99}) == "out_of_range"
    guarded = await start_api(allow_private=False)
    assert await status_kind_of(guarded, 403, local_server.url("/binary")) == \
        "blocked_address"


async def status_kind_of(api: Api, status: int, url: str) -> str:
    body = await api.json("POST", "/v1/documents", status, json={"url": url})
    return str(body["kind"])


async def test_a_full_ingest_queue_is_429(start_api: Start, local_server: LocalServer
                                          ) -> None:
    api = await start_api(max_pending=1)
    release = anyio.Event()

    async def held(request: web.Request) -> web.Response:
        await release.wait()
        return web.Response(text=PAGE, content_type="text/html")

    local_server.route("/held", held)
    statuses: list[int] = []

    async def first() -> None:
        async with api.request("POST", "/v1/documents",
                               json={"url": local_server.url("/held")}) as response:
            statuses.append(response.status)

    async with anyio.create_task_group() as group:
        group.start_soon(first)
        while not any(path == "/held" for path, _ in local_server.seen):
            await anyio.sleep(0.01)
        async with api.request("POST", "/v1/documents",
                               json={"url": local_server.url("/held")}) as response:
            assert response.status == 429 and response.headers["Retry-After"]
            assert (await response.json())["kind"] == "queue_full"
        release.set()
    assert statuses == [201]


async def test_the_openapi_document_validates_and_matches_the_routes(start_api: Start
                                                                     ) -> None:
    api = await start_api()
    served = await api.json("GET", "/openapi.json", 200, token=None)
    assert served == json.loads(json.dumps(openapi_document()))
    validate(served)
    routes = {(r.resource.canonical, r.method.lower()) for r in api.app.router.routes()
              if r.resource is not None and r.method != "HEAD"}
    documented = {(path, method) for path, item in served["paths"].items()  # type: ignore[union-attr]
                  for method in item if method != "parameters"}
    assert routes == documented


async def test_sheaf_serve_answers_and_refuses_to_bind_beyond_loopback_without_a_token(
        tmp_path: Path) -> None:
    import socket

    from tests.entrypoints.test_cli import SHEAF

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    refused = await anyio.run_process([SHEAF, "serve", "--host", "0.0.0.0", "--store",
                                       str(tmp_path / "s.duckdb")], check=False)
    assert refused.returncode == 2 and b"needs --token" in refused.stderr
    async with await anyio.open_process([SHEAF, "serve", "--port", str(port), "--token", "t",
                                         "--store", str(tmp_path / "s.duckdb")]) as server:
        try:
            async with aiohttp.ClientSession() as session:
                with anyio.fail_after(30):
                    while True:
                        try:
                            async with session.get(f"http://127.0.0.1:{port}/v1/health") as r:
                                assert r.status == 200
                                assert (await r.json())["status"] == "ok"
                                break
                        except aiohttp.ClientConnectionError:
                            await anyio.sleep(0.2)
                async with session.get(f"http://127.0.0.1:{port}/v1/documents") as r:
                    assert r.status == 401
        finally:
            server.terminate()


async def test_an_upload_is_cited_by_its_original_file_name(start_api: Start) -> None:
    api = await start_api()
    form = aiohttp.FormData()
    form.add_field("file", b"# Fox survey\n\nUrban foxes eat from bins at night.\n",
                   filename="C:\\field work\\fox survey.md", content_type="text/markdown")
    created = await api.json("POST", "/v1/documents", 201, data=form)
    document_id = str(created["document_id"])
    one = await api.json("GET", f"/v1/documents/{document_id}", 200)
    assert one["url"] is None and one["location"] == {"file_name": "fox survey.md"}
    found = await api.json("GET", "/v1/search?q=urban+foxes&k=1", 200)
    assert found["results"][0]["location"] == {"file_name": "fox survey.md"}  # type: ignore[index]
    quoted = await api.json("POST", "/v1/quote", 200, json={
        "document_id": document_id, "text": "urban foxes eat from bins"})
    assert quoted["quotes"][0]["location"] == {"file_name": "fox survey.md"}  # type: ignore[index]
    assert "uploads" not in json.dumps(quoted) and "uploads" not in json.dumps(one)


async def test_no_answer_to_an_upload_names_the_servers_spool(start_api: Start) -> None:
    api = await start_api()
    spool = str(api.app[SETTINGS].uploads)
    answers = []
    for name, body in (("report.md", b"# Report\n\nHerons nest in the reeds.\n"),
                       ("report.md", b"# Report\n\nHerons nest in the reeds.\n"),
                       ("copy.md", b"# Report\n\nHerons nest in the reeds.\n"),
                       ("tool.bin", b"\x7fELF\x02\x01\x01" + bytes(64))):
        form = aiohttp.FormData()
        form.add_field("file", body, filename=name, content_type="application/octet-stream")
        async with api.request("POST", "/v1/documents", data=form) as response:
            answers.append((response.status, await response.text()))
    assert [status for status, _ in answers] == [201, 200, 200, 415]
    for _, text in answers:
        assert spool not in text and "/uploads/" not in text, text
    assert json.loads(answers[0][1])["source"] == "report.md"
    assert json.loads(answers[2][1])["status"] == "duplicate"
