"""`sheaf list --limit/--cursor` and `GET /v1/documents?limit=&cursor=` page through a
space: every document once, in the order of the whole listing; a cursor no page gave is
`invalid_query`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from sheaf import Knowledge, Settings
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from tests.entrypoints.cli_runner import run_async

pytestmark = pytest.mark.anyio


def _notes(folder: Path, count: int) -> Path:
    folder.mkdir()
    for index in range(count):
        (folder / f"note{index}.md").write_text(f"# Note {index}\n\nHerons, {index} of them.\n")
    return folder


async def test_sheaf_list_pages_by_cursor(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    done = await run_async("ingest", _notes(tmp_path / "notes", 7), "--store", store)
    assert done.exit_code == 0, done.output
    whole = [json.loads(line)["id"] for line in
             (await run_async("list", "--json", "--store", store)).stdout.splitlines()]
    assert len(whole) == 7
    paged: list[str] = []
    cursor: list[str] = []
    for _ in range(5):
        page = await run_async("list", "--json", "--limit", "3", "--store", store, *cursor)
        assert page.exit_code == 0, page.output
        paged += [json.loads(line)["id"] for line in page.stdout.splitlines()]
        found = re.search(r"next page: --cursor (\S+)", page.stderr)
        if found is None:
            break
        cursor = ["--cursor", found.group(1)]
    assert paged == whole
    bad = await run_async("list", "--cursor", "not-a-cursor", "--store", store)
    assert bad.exit_code != 0 and "invalid_query" in bad.stderr and "cursor" in bad.stderr


async def test_the_documents_endpoint_pages_by_cursor(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    assert (await run_async("ingest", _notes(tmp_path / "notes", 5), "--store", store)
            ).exit_code == 0
    async with Knowledge.open(settings=Settings(store)) as kb:
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "up")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}/v1/documents"
        try:
            async with aiohttp.ClientSession() as session:
                async def get(query: str) -> tuple[int, dict[str, object]]:
                    async with session.get(url + query) as response:
                        return response.status, await response.json()

                status, whole = await get("")
                assert status == 200 and whole["next_cursor"] is None
                ids = [d["id"] for d in whole["documents"]]  # type: ignore[attr-defined]
                paged: list[str] = []
                query = "?limit=2"
                while True:
                    status, page = await get(query)
                    assert status == 200, page
                    paged += [d["id"] for d in page["documents"]]  # type: ignore[attr-defined]
                    if page["next_cursor"] is None:
                        break
                    query = f"?limit=2&cursor={page['next_cursor']}"
                assert paged == ids and len(ids) == 5
                for bad in ("?limit=0", "?limit=x", "?cursor=%25%25"):
                    status, problem = await get(bad)
                    assert status == 400 and problem["kind"] == "invalid_query", bad
        finally:
            await runner.cleanup()


async def test_a_page_travels_to_a_held_store_and_back(tmp_path: Path) -> None:
    """The holder (ADR-0022) answers other processes in JSON: a page survives it."""
    from sheaf.domain.store.document_pages import DocumentPage
    from sheaf.domain.values.value_codec import from_plain, to_plain

    store = tmp_path / "kb.duckdb"
    assert (await run_async("ingest", _notes(tmp_path / "notes", 3), "--store", store)
            ).exit_code == 0
    async with Knowledge.open(settings=Settings(store)) as kb:
        page = await kb.documents_page(2)
    assert page.next_cursor and len(page.documents) == 2
    assert from_plain(DocumentPage, json.loads(json.dumps(to_plain(page)))) == page
