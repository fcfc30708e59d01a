"""`sheaf mcp` as clients run it: a real subprocess over stdio, and over streamable HTTP
on 127.0.0.1 behind a bearer token, each driven by the SDK's own client."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from sheaf.entrypoints.mcp.output_budget import CHARACTERS_PER_TOKEN, size_of
from tests.entrypoints.mcp_server.fixtures import write_library

# Real `sheaf mcp` processes: `make test-integration` (and .ci/run) runs them.
pytestmark = [pytest.mark.anyio, pytest.mark.integration]
SHEAF = str(Path(sys.executable).with_name("sheaf"))
BUDGET = 1000
TOKEN = "s3cret-for-tests"


def server_arguments(tmp_path: Path, library: Path) -> list[str]:
    return ["mcp", "--store", str(tmp_path / "kb.duckdb"), "--embedder", "hashing",
            "--allow-folder", str(library), "--max-result-tokens", str(BUDGET)]


def environment() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("SHEAF_")}
    return {**kept, "LOG_LEVEL": "warning"}


async def the_job(client: Client, library: Path) -> None:
    """What every transport must carry: tools and resources listed, a fixture ingested,
    searched, quoted exactly, a section read, a long document paged within the budget,
    and typed errors."""
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert {"ingest_file", "search_knowledge", "get_exact_quote", "read_document"} <= names
    heard: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total))

    folder = await client.call_tool("ingest_file", {"path": str(library)},
                                    progress_callback=progress)
    assert folder.structured_content["counts"] == {"new": 2}
    assert heard == [(0, 2), (1, 2), (2, 2)]  # notifications cross the transport
    resources = (await client.list_resources()).resources
    assert len(resources) == 2
    by_title: dict[str, str] = {}
    arguments: dict[str, Any] = {}
    while True:  # the records are large for this budget: it takes pages
        listed = (await client.call_tool("list_documents", arguments)).structured_content
        by_title |= {d["title"]: d["id"] for d in listed["documents"]}
        if not listed["next_cursor"]:
            break
        arguments = {"cursor": listed["next_cursor"]}
    tides, harbour = by_title["Tidal Rhythms"], by_title["Harbour survey"]

    found = await client.call_tool("search_knowledge", {"query": "seagrass shoots low tide"})
    assert found.structured_content["results"][0]["document_id"] == tides
    quoted = await client.call_tool("get_exact_quote", {
        "document_id": tides, "text": "plots were fixed with steel pegs"})
    quote = quoted.structured_content["quotes"][0]
    assert quote["text"] == "Plots were fixed with steel pegs"
    section = await client.call_tool("read_document", {"document_id": tides,
                                                       "section": "results"})
    assert section.structured_content["text"].startswith("## Results")

    pieces, arguments = 0, {"document_id": harbour}
    while True:
        result = await client.call_tool("read_document", arguments)
        assert size_of(result.structured_content, result.content[0].text) <= \
            BUDGET * CHARACTERS_PER_TOKEN
        pieces += 1
        following = result.structured_content["next"]
        if following is None:
            break
        arguments = following
    assert pieces > 5

    for name, call, kind in (
            ("get_sections", {"document_id": "doc_missing"}, "document_not_found"),
            ("ingest_url", {"url": "http://127.0.0.1:9/admin"}, "blocked_address"),
            ("ingest_url", {"url": "http://169.254.169.254/latest/meta-data/"},
             "blocked_address"),
            ("ingest_file", {"path": "../../etc/passwd"}, "path_not_allowed")):
        failed = await client.call_tool(name, call)
        assert failed.is_error and failed.structured_content["error"]["kind"] == kind


async def test_over_stdio_in_a_subprocess(tmp_path: Path) -> None:
    library = write_library(tmp_path)
    parameters = StdioServerParameters(command=SHEAF, args=server_arguments(tmp_path, library),
                                       env=environment())
    with anyio.fail_after(120):
        # The initialize handshake, as today's desktop clients open a session.
        async with Client(parameters, mode="legacy") as client:
            await the_job(client, library)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    library = write_library(tmp_path)
    process = subprocess.Popen(
        [SHEAF, *server_arguments(tmp_path, library), "--http", "--port", "0",
         "--token", TOKEN], env=environment(), stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        announced = process.stderr.readline()
        found = re.search(r"sheaf: MCP on (http://127\.0\.0\.1:(\d+)/mcp) ", announced)
        assert found and found[2] != "0", announced
        yield found[1], library
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0  # SIGTERM stops it cleanly


def http_client(token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))


async def test_over_streamable_http_behind_a_token(http_server: tuple[str, Path]) -> None:
    url, library = http_server
    async with http_client(None) as anonymous:
        refused = await anonymous.post(url, json={"jsonrpc": "2.0", "id": 1,
                                                  "method": "tools/list"})
        assert refused.status_code == 401
    async with http_client("wrong") as wrong:
        assert (await wrong.post(url, json={})).status_code == 401
    with anyio.fail_after(120):
        async with http_client(TOKEN) as authorised, \
                Client(streamable_http_client(url, http_client=authorised)) as client:
            await the_job(client, library)
    # Its metrics, scraped behind the same token: the session's requests counted.
    metrics_url = url.removesuffix("/mcp") + "/metrics"
    async with http_client(None) as anonymous:
        assert (await anonymous.get(metrics_url)).status_code == 401
    async with http_client(TOKEN) as authorised:
        scraped = await authorised.get(metrics_url)
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith(
        "text/plain; version=0.0.4")
    counted = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
               for line in scraped.text.splitlines() if line and not line.startswith("#")}
    assert counted['sheaf_http_requests_total{method="POST",route="/mcp",status="200"}'] > 5
    assert counted['sheaf_http_request_seconds_count{route="/mcp"}'] > 5


async def test_pages_and_rebinding_names_are_refused_before_the_token(
        http_server: tuple[str, Path]) -> None:
    """The API's browser rules (`browser_requests`), on the real `sheaf mcp --http`."""
    url, _ = http_server
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with http_client(TOKEN) as authorised:
        rebinding = await authorised.post(url, json=listing,
                                          headers={"Host": "attacker.example"})
        assert rebinding.status_code == 421
        page = await authorised.post(url, json=listing,
                                     headers={"Origin": "https://attacker.example"})
        assert page.status_code == 403
        form = await authorised.post(url, json=listing,
                                     headers={"Sec-Fetch-Site": "cross-site"})
        assert form.status_code == 403


def test_serving_beyond_loopback_needs_a_token(tmp_path: Path) -> None:
    done = subprocess.run([SHEAF, "mcp", "--http", "--host", "0.0.0.0", "--store",
                           str(tmp_path / "kb.duckdb")], env=environment(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "needs --token" in done.stderr


def test_a_signal_stops_the_stdio_server_cleanly(tmp_path: Path) -> None:
    library = write_library(tmp_path)
    process = subprocess.Popen([SHEAF, *server_arguments(tmp_path, library)],
                               env=environment(), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdin is not None
        process.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
        process.stdin.flush()
        assert b'"id":1' in process.stdout.readline().replace(b" ", b"")  # serving
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
