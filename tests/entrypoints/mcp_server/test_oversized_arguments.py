"""Arguments far past any sensible size (issue 30): every answer, errors included, stays
within the output budget; a path the system cannot use is a typed tool error naming no
server path; `k` has a documented maximum on every interface."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from mcp import Client

from sheaf import Knowledge, Settings
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.search_request import MAX_RESULTS
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from sheaf.entrypoints.mcp.output_budget import CHARACTERS_PER_TOKEN, size_of
from sheaf.entrypoints.mcp.server import ServerSettings, build_server

pytestmark = pytest.mark.anyio
BUDGET = 400  # tokens: room for one search hit with its citation


@pytest.fixture
async def library(tmp_path: Path) -> Path:
    folder = tmp_path / "allowed"
    folder.mkdir()
    (folder / "tides.md").write_text("# Tides\n\nSeagrass grew with the tides.\n")
    return folder


@pytest.fixture
async def client(tmp_path: Path, library: Path) -> AsyncIterator[Client]:
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as kb:
        await kb.ingest(str(library / "tides.md"))
        served = ServerSettings.of(folders=(library,), token_budget=BUDGET)
        async with Client(build_server(kb, served)) as connected:
            yield connected


def within_budget(result: object) -> bool:
    structured = result.structured_content  # type: ignore[attr-defined]
    text = result.content[0].text  # type: ignore[attr-defined]
    return size_of(structured, text) <= BUDGET * CHARACTERS_PER_TOKEN


async def test_every_answer_to_a_huge_argument_fits_the_budget(client: Client) -> None:
    huge = "seagrass " * 12_000  # 108,000 characters
    for name, arguments in (
            ("search_knowledge", {"query": huge}),
            ("search_knowledge", {"query": huge[:35_000], "k": 1}),
            ("get_sections", {"document_id": huge}),
            ("get_exact_quote", {"document_id": huge, "text": huge}),
            ("read_document", {"document_id": huge}),
            ("ingest_url", {"url": "https://" + huge.replace(" ", "")}),
            ("ingest_file", {"path": huge}),
            ("list_documents", {"cursor": huge}),
            ("search_knowledge", {"query": "tides", "section": huge})):
        result = await client.call_tool(name, arguments)
        assert within_budget(result), (name, size_of(result.structured_content,
                                                     result.content[0].text))
    unknown = await client.call_tool("x" * 100_000, {})
    assert unknown.is_error and within_budget(unknown)


async def test_a_path_the_system_refuses_is_a_typed_error(client: Client, library: Path
                                                          ) -> None:
    for path in (str(library / ("a" * 5000)), str(library / ("b" * 300) / "c.md"),
                 "/".join(["d" * 200] * 30), str(library / "tides.md") + "/" + "e" * 4100):
        result = await client.call_tool("ingest_file", {"path": path})
        assert result.is_error, path[:80]
        kind = result.structured_content["error"]["kind"]
        assert kind in ("invalid_query", "path_not_allowed", "input_not_found"), kind
        assert str(library.parent) not in json.dumps(result.structured_content)
        assert within_budget(result)


async def test_k_past_the_maximum_is_refused_by_tools_and_facade(client: Client,
                                                                 tmp_path: Path) -> None:
    result = await client.call_tool("search_knowledge", {"query": "tides", "k": 10_000})
    assert result.is_error
    assert result.structured_content["error"]["kind"] == "invalid_query"
    async with Knowledge.open(tmp_path / "other.duckdb", embedder="hashing") as kb:
        await kb.ingest(str(tmp_path / "allowed" / "tides.md"))
        assert await kb.search("tides", MAX_RESULTS)
        with pytest.raises(SheafError) as refused:
            await kb.search("tides", MAX_RESULTS + 1)
        assert refused.value.kind is ErrorKind.INVALID_QUERY
        assert str(MAX_RESULTS) in refused.value.message


async def test_k_past_the_maximum_is_refused_over_http(tmp_path: Path, library: Path
                                                       ) -> None:
    async with Knowledge.open(settings=Settings(tmp_path / "kb.duckdb")) as kb:
        await kb.ingest(str(library / "tides.md"))
        runner = web.AppRunner(build_app(kb, ApiSettings()))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}/v1/search?q=tides&k="
        try:
            async with aiohttp.ClientSession() as session:
                async with session.get(base + str(MAX_RESULTS)) as response:
                    assert response.status == 200
                for k in (MAX_RESULTS + 1, 10**30, 0, -5):
                    async with session.get(base + str(k)) as response:
                        body = await response.json()
                        assert response.status == 400, (k, body)
                        assert body["kind"] == "invalid_request"
                        assert str(MAX_RESULTS) in body["detail"] or k < 1
        finally:
            await runner.cleanup()
