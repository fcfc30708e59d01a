"""Tokens scoped to spaces on the HTTP API: a read token reads its space and nothing
else, a write token ingests and deletes in its space only, `*` reaches every space, the
unscoped token still reaches all; a bad SHEAF_API_TOKENS entry is a configuration error
naming it (never echoing a token)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from sheaf import Knowledge, Settings
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.domain.errors import ConfigurationError
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from sheaf.entrypoints.http.token_scopes import TokenScope, parse_token_scopes
from tests.entrypoints.cli_runner import run

pytestmark = pytest.mark.anyio
SCOPES = "papers:read:reader-1 papers:write:writer:with:colons,*:read:auditor"
NOTE = b"# Tides\n\nSeagrass grew with the tides.\n"


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[str, aiohttp.ClientSession]]:
    settings = Settings(tmp_path / "kb.duckdb", fetch=HttpSettings(retries=0))
    async with Knowledge.open(settings=settings) as kb:
        app = build_app(kb, ApiSettings(token="admin", scopes=parse_token_scopes(SCOPES),
                                        uploads=tmp_path / "uploads"))
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        async with aiohttp.ClientSession() as session:
            yield f"http://127.0.0.1:{port}", session
        await runner.cleanup()


async def _call(api: tuple[str, aiohttp.ClientSession], method: str, path: str,
                token: str, **options: object) -> tuple[int, dict[str, object]]:
    url, session = api
    async with session.request(method, url + path, headers={
            "Authorization": f"Bearer {token}"}, **options) as response:  # type: ignore[arg-type]
        return response.status, json.loads(await response.text() or "{}")


def _upload() -> aiohttp.FormData:
    form = aiohttp.FormData()
    form.add_field("file", NOTE, filename="tides.md", content_type="text/markdown")
    return form


async def test_a_scoped_token_is_refused_outside_its_space(api) -> None:  # type: ignore[no-untyped-def]
    status, created = await _call(api, "POST", "/v1/documents?space=papers",
                                  "writer:with:colons", data=_upload())
    assert status == 201, created
    status, _ = await _call(api, "POST", "/v1/documents?space=notes", "admin",
                            data=_upload())
    assert status == 201

    status, listed = await _call(api, "GET", "/v1/documents?space=papers", "reader-1")
    assert status == 200 and len(listed["documents"]) == 1  # type: ignore[arg-type]
    for path in ("/v1/documents?space=notes", "/v1/documents",
                 "/v1/search?q=seagrass&space=notes"):
        status, refused = await _call(api, "GET", path, "reader-1")
        assert status == 403 and refused["kind"] == "forbidden", (path, refused)
        assert "space 'papers'" in str(refused["detail"])
    # Reading is not writing: the read token may not ingest or delete in its own space.
    status, refused = await _call(api, "POST", "/v1/documents?space=papers", "reader-1",
                                  data=_upload())
    assert status == 403 and "not write" in str(refused["detail"])
    document = created["document_id"]
    status, _ = await _call(api, "DELETE", f"/v1/documents/{document}?space=papers",
                            "reader-1")
    assert status == 403
    # A quote is a POST that reads: allowed to a read token in its space.
    status, quoted = await _call(api, "POST", "/v1/quote?space=papers", "reader-1",
                                 json={"document_id": document, "text": "Seagrass grew"})
    assert status == 200, quoted
    # The write token writes its space only; `*` reads them all; a stranger is 401.
    status, _ = await _call(api, "POST", "/v1/documents?space=notes", "writer:with:colons",
                            data=_upload())
    assert status == 403
    for space in ("papers", "notes"):
        status, _ = await _call(api, "GET", f"/v1/documents?space={space}", "auditor")
        assert status == 200
    status, _ = await _call(api, "GET", "/v1/documents?space=papers", "reader-2")
    assert status == 401
    status, _ = await _call(api, "DELETE", f"/v1/documents/{document}?space=papers",
                            "writer:with:colons")
    assert status in (200, 204)


@pytest.mark.parametrize("text, complaint", [
    ("papers:admin:zq9secret", "wants SPACE:read:TOKEN"),
    ("papers:read:", "wants SPACE:read:TOKEN"),
    ("zq9secret", "wants SPACE:read:TOKEN"),
    ("a:read:zq9secret b:write:zq9secret", "names one token twice"),
])
def test_bad_entries_are_configuration_errors_naming_them(text: str, complaint: str
                                                          ) -> None:
    with pytest.raises(ConfigurationError) as caught:
        parse_token_scopes(text)
    assert complaint in str(caught.value)
    assert "zq9secret" not in str(caught.value)  # a token is never echoed


def test_entries_parse_and_scopes_answer() -> None:
    read, write = parse_token_scopes("papers:read:r1,\n*:write:w1")
    assert read == TokenScope("r1", "papers", False) and "r1" not in repr(read)
    assert read.allows("papers", False) and not read.allows("papers", True)
    assert not read.allows("notes", False)
    assert write.allows("anything", True)
    assert parse_token_scopes("") == () and parse_token_scopes(None) == ()


def test_serve_refuses_bad_tokens_before_opening_anything(tmp_path: Path) -> None:
    done = run("serve", "--tokens", "papers:own:x", "--store", tmp_path / "kb.duckdb")
    assert done.exit_code == 2 and "SHEAF_API_TOKENS" in done.stderr
