"""What a model cannot make the server do, however it spells the request: fetch a
loopback, private or link-local address (directly or by redirect), read a file outside
the allowed folders, or pass a parameter that would lift either rule."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from sheaf import Knowledge
from sheaf.entrypoints.mcp.server import ServerSettings, build_server
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    allowed, secret = tmp_path / "allowed", tmp_path / "secret"
    allowed.mkdir()
    secret.mkdir()
    (allowed / "ok.md").write_text("# Fine\n\nA file the server may read.\n")
    (secret / "keys.md").write_text("# Keys\n\nhunter2 is the password.\n")
    (allowed / "escape.md").symlink_to(secret / "keys.md")
    (allowed / "door").symlink_to(secret, target_is_directory=True)
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb, \
            Client(build_server(kb, ServerSettings.of(folders=(allowed,)))) as connected:
        yield connected


async def test_no_spelling_of_a_private_address_is_fetched(client: Client,
                                                          local_server: LocalServer) -> None:
    local_server.add("/secret", "<html><body><p>internal admin page</p></body></html>",
                     content_type="text/html")
    local_server.redirect("/hop", local_server.url("/secret"))
    port = local_server.port
    spellings = [
        f"http://127.0.0.1:{port}/secret", f"http://localhost:{port}/secret",
        f"http://127.1:{port}/secret", f"http://2130706433:{port}/secret",
        f"http://0x7f000001:{port}/secret", f"http://[::1]:{port}/secret",
        f"http://[::ffff:127.0.0.1]:{port}/secret", f"http://127.0.0.1:{port}/hop",
        "http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
    ]
    for url in spellings:
        result = await client.call_tool("ingest_url", {"url": url})
        assert result.is_error, url
        assert result.structured_content["error"]["kind"] in ("blocked_address",
                                                              "invalid_url"), (url, result)
    assert local_server.seen == []


async def test_other_schemes_and_lifting_parameters_are_refused(client: Client) -> None:
    for arguments, kind in (
            ({"url": "file:///etc/passwd"}, "invalid_url"),
            ({"url": "/etc/passwd"}, "invalid_url"),
            ({"url": "ftp://example.org/x"}, "invalid_url"),
            ({"url": "http://example.org/", "allow_private_network": True}, "invalid_query"),
            ({"url": "http://example.org/", "allow_private": True}, "invalid_query")):
        result = await client.call_tool("ingest_url", arguments)
        assert result.is_error and result.structured_content["error"]["kind"] == kind
    refused = await client.call_tool("ingest_file", {"path": "ok.md", "folders": ["/"]})
    assert refused.structured_content["error"]["kind"] == "invalid_query"


async def test_nothing_outside_the_allowed_folders_is_read(client: Client,
                                                          tmp_path: Path) -> None:
    for path in ("../secret/keys.md", str(tmp_path / "secret" / "keys.md"), "escape.md",
                 "door/keys.md", "/etc/passwd", "~/.ssh/id_rsa", "..", "/"):
        result = await client.call_tool("ingest_file", {"path": path})
        assert result.is_error, path
        assert result.structured_content["error"]["kind"] == "path_not_allowed", path
    folder = await client.call_tool("ingest_file", {"path": "."})
    ingested = [r["source"] for r in folder.structured_content["results"]]
    assert ingested == [str(tmp_path / "allowed" / "ok.md")]  # the links out were skipped
    found = await client.call_tool("search_knowledge", {"query": "hunter2 password"})
    assert all("hunter2" not in hit["text"] for hit in found.structured_content["results"])
