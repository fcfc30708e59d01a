"""The CLI's `--json`, the HTTP API and the LLM tools give the same records for list,
show, search and quote on the same store: one serialiser under every interface."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from sheaf import Knowledge
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from tests.entrypoints.cli_runner import json_lines, run_async

pytestmark = pytest.mark.anyio
NOTES = {"tides.md": "# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide.\n\n"
                     "## Results\n\nSeagrass grew with the tides. Shoot density doubled.\n",
         "foxes.md": "# Foxes\n\n## Results\n\nUrban foxes eat from bins at night.\n"}


def plain(value: Any) -> Any:
    """As a JSON reader sees it (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


async def test_cli_http_and_tools_print_the_same_records(tmp_path: Path) -> None:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
    store = tmp_path / "kb.duckdb"
    async with Knowledge.open(store, embedder="hashing") as kb:
        tides = await kb.ingest(str(tmp_path / "tides.md"), metadata={"team": "blue"})
        await kb.ingest(str(tmp_path / "foxes.md"))
    document = str(tides.document_id)
    on_store = ("--store", str(store), "--embedder", "hashing")

    cli = {
        "list": json_lines(await run_async("list", "--json", *on_store)),
        "search": json_lines(await run_async("search", "seagrass tides", "--k", "3",
                                             "--mode", "bm25", "--json", *on_store)),
        "quote": json_lines(await run_async("quote", document, "--text",
                                            "shoot density doubled", "--json", *on_store)),
    }
    # `show --json` is indented: one document over many lines.
    shown = await run_async("show", document, "--json", *on_store)
    assert shown.exit_code == 0, shown.output
    cli["show"] = [json.loads(shown.stdout)]

    async with Knowledge.open(store, embedder="hashing") as kb:
        tools = {
            "list": (await kb.call_tool("list_documents", {}))["documents"],
            "show": [await kb.call_tool("get_document", {"document_id": document})],
            "search": (await kb.call_tool("search_knowledge", {
                "query": "seagrass tides", "k": 3, "mode": "bm25"}))["results"],
            "quote": (await kb.call_tool("get_exact_quote", {
                "document_id": document, "text": "shoot density doubled"}))["quotes"],
        }
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "uploads")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        try:
            async with aiohttp.ClientSession() as session:
                async def get(path: str, **options: Any) -> Any:
                    async with session.request(options.pop("method", "GET"), base + path,
                                               **options) as response:
                        assert response.status == 200, await response.text()
                        return await response.json()

                http = {
                    "list": (await get("/v1/documents"))["documents"],
                    "show": [await get(f"/v1/documents/{document}")],
                    "search": (await get("/v1/search?q=seagrass+tides&k=3&mode=bm25"))[
                        "results"],
                    "quote": (await get("/v1/quote", method="POST", json={
                        "document_id": document, "text": "shoot density doubled"}))[
                        "quotes"],
                }
        finally:
            await runner.cleanup()

    for what in ("list", "show", "search", "quote"):
        assert cli[what], what
        assert plain(cli[what]) == plain(http[what]) == plain(tools[what]), what
    (listed_tides,) = [d for d in cli["list"] if d["id"] == document]
    assert listed_tides["content"] == "raw" and "source" not in listed_tides
    assert listed_tides["caller_metadata"] == {"team": "blue"}
    assert cli["show"][0]["history"] and cli["search"][0]["rank"] == 1
