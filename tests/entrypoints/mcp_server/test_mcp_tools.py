"""The MCP server's tools and resources, driven by the SDK's own client in process: the
whole job, answers within the budget, paging, typed errors, removal only when allowed,
progress and cancellation."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from aiohttp import web
from mcp import Client
from mcp.shared.exceptions import MCPError as McpError

from sheaf import Knowledge
from sheaf.domain.analysis.sentences import sentence_spans
from sheaf.entrypoints.mcp.output_budget import CHARACTERS_PER_TOKEN, size_of
from sheaf.entrypoints.mcp.server import ServerSettings, build_server
from tests.entrypoints.mcp_server.fixtures import write_library
from tests.local_server import LocalServer
from tests.pdf_writer import write_pdf_file

pytestmark = pytest.mark.anyio
BUDGET = 600  # tokens: small, so the long report needs several answers


@pytest.fixture
async def library(tmp_path: Path) -> Path:
    return write_library(tmp_path)


@pytest.fixture
async def kb(tmp_path: Path) -> AsyncIterator[Knowledge]:
    async with Knowledge.open(tmp_path / "kb.duckdb", "mcp", embedder="hashing") as opened:
        yield opened


def connect(kb: Knowledge, library: Path, **options: Any) -> Client:
    settings = ServerSettings.of(folders=(library,), token_budget=BUDGET, **options)
    return Client(build_server(kb, settings))


def answer_size(result: Any) -> int:
    return size_of(result.structured_content, "".join(c.text for c in result.content))


async def test_the_whole_job_over_mcp(kb: Knowledge, library: Path) -> None:
    async with connect(kb, library) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        shared = [tool["name"] for tool in Knowledge.tools("anthropic")]
        assert names == [*shared, "read_document", "ingest_file"]
        assert {"ingest_url", "search_knowledge", "get_exact_quote", "list_documents",
                "get_sections"} <= set(shared)
        ingested = await client.call_tool("ingest_file", {"path": "tides.md"})
        assert not ingested.is_error and ingested.structured_content["status"] == "new"
        document_id = ingested.structured_content["document_id"]

        found = await client.call_tool("search_knowledge", {"query": "shoot density spring"})
        top = found.structured_content["results"][0]
        assert "Shoot density doubled in spring." in top["text"]
        assert top["title"] == "Tidal Rhythms"
        assert top["location"]["path"] == str(library / "tides.md")
        assert "Tidal Rhythms" in found.content[0].text  # the text rendering cites too

        widened = await client.call_tool("search_knowledge", {
            "query": "shoot density spring", "group_by_document": True,
            "expand": "parent-section", "source": "raw"})
        (grouped,) = widened.structured_content["results"]
        assert grouped["context"]["kind"] == "parent-section"
        assert grouped["context"]["text"].startswith("## Results")  # the whole section

        quoted = await client.call_tool("get_exact_quote", {
            "document_id": document_id, "text": "shoot density doubled in spring"})
        quote = quoted.structured_content["quotes"][0]
        markdown = (await kb.document(document_id)).markdown
        assert quote["text"] == "Shoot density doubled in spring"
        assert markdown[quote["start"]:quote["end"]] == quote["text"]
        assert quote["section_path"][-1] == "Results"

        second = await client.call_tool("get_exact_quote", {"document_id": document_id,
                                                            "sentence": 2})
        assert second.structured_content["quotes"][0]["text"] == \
            "Plots were fixed with steel pegs."
        lines = await client.call_tool("get_exact_quote", {"document_id": document_id,
                                                           "lines": [1, 1]})
        assert lines.structured_content["quotes"][0]["text"] == "# Tidal Rhythms"

        section = await client.call_tool("read_document", {"document_id": document_id,
                                                           "section": "methods"})
        read = section.structured_content
        assert read["text"].startswith("## Methods") and read["next"] is None
        assert markdown[read["start"]:read["end"]] == read["text"]

        sections = await client.call_tool("get_sections", {"document_id": document_id})
        assert {"methods", "results"} <= {s["label"] for s in
                                          sections.structured_content["sections"]}
        listed = await client.call_tool("list_documents", {})
        assert [d["id"] for d in listed.structured_content["documents"]] == \
            [document_id]


async def test_a_long_document_is_read_in_pieces_that_end_on_sentences(
        kb: Knowledge, library: Path) -> None:
    async with connect(kb, library) as client:
        ingested = await client.call_tool("ingest_file", {"path": "reports/harbour.md"})
        document_id = ingested.structured_content["document_id"]
        markdown = (await kb.document(document_id)).markdown
        assert len(markdown) > 4 * BUDGET * CHARACTERS_PER_TOKEN
        sentence_ends = {end for _, end in sentence_spans(markdown)}
        pieces, arguments = [], {"document_id": document_id}
        while True:
            result = await client.call_tool("read_document", arguments)
            assert not result.is_error
            assert answer_size(result) <= BUDGET * CHARACTERS_PER_TOKEN
            read = result.structured_content
            assert markdown[read["start"]:read["end"]] == read["text"]
            pieces.append(read["text"])
            if read["next"] is None:
                break
            assert read["end"] in sentence_ends  # never half a sentence
            arguments = {"document_id": document_id, "start": read["next"]["start"],
                         "end": read["next"]["end"]}
        assert len(pieces) >= 4 and "".join(pieces) == markdown


async def test_lists_past_the_budget_come_with_a_cursor_to_the_rest(
        kb: Knowledge, library: Path) -> None:
    async with connect(kb, library) as client:
        await client.call_tool("ingest_file", {"path": "reports"})
        arguments = {"query": "buoy drifted metres east of the pier", "k": 30}
        seen: list[tuple[int, int]] = []
        result = await client.call_tool("search_knowledge", arguments)
        assert result.structured_content["next_cursor"]  # the budget was hit
        while True:
            assert answer_size(result) <= BUDGET * CHARACTERS_PER_TOKEN
            answer = result.structured_content
            seen += [(h["start"], h["end"]) for h in answer["results"]]
            if not answer["next_cursor"]:
                break
            result = await client.call_tool("search_knowledge",
                                            {**arguments, "cursor": answer["next_cursor"]})
        assert len(seen) == answer["total"] == len(set(seen)) == 30

        wrong = await client.call_tool("search_knowledge", {
            "query": "something else", "cursor": result.structured_content["next_cursor"]
            or "eyJza2lwIjogMSwgImNhbGwiOiAiMCJ9"})
        assert wrong.is_error and wrong.structured_content["error"]["kind"] == "invalid_query"


async def test_failures_are_typed_tool_errors(kb: Knowledge, library: Path,
                                              local_server: LocalServer) -> None:
    local_server.add("/page", "<html><body><p>private</p></body></html>",
                     content_type="text/html")
    cases = [
        ("get_sections", {"document_id": "doc_0000000000000000"}, "document_not_found"),
        ("read_document", {"document_id": "nowhere"}, "document_not_found"),
        ("ingest_url", {"url": local_server.url("/page")}, "blocked_address"),
        ("ingest_file", {"path": "/etc/hostname"}, "path_not_allowed"),
        ("ingest_file", {"path": "missing.md"}, "input_not_found"),
        ("search_knowledge", {"query": "x", "k": 0}, "invalid_query"),
        ("search_knowledge", {"query": "x", "allow_private": True}, "invalid_query"),
        ("remove_document", {"document_id": "anything"}, "invalid_query"),
    ]
    async with connect(kb, library) as client:
        for name, arguments, kind in cases:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert result.structured_content["error"]["kind"] == kind, (name, result)
            assert result.content[0].text.startswith(f"error {kind}: ")
    assert local_server.seen == []


async def test_removal_is_offered_only_when_the_server_allows_it(
        kb: Knowledge, library: Path) -> None:
    async with connect(kb, library, allow_remove=True) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "remove_document" in names
        ingested = await client.call_tool("ingest_file", {"path": "tides.md"})
        document_id = ingested.structured_content["document_id"]
        removed = await client.call_tool("remove_document", {"document_id": document_id})
        assert removed.structured_content["removed"]["id"] == document_id
        assert await kb.documents() == []


async def test_resources_list_documents_and_read_them_in_pieces(
        kb: Knowledge, library: Path) -> None:
    async with connect(kb, library) as client:
        ingested = await client.call_tool("ingest_file", {"path": "reports/harbour.md"})
        document_id = ingested.structured_content["document_id"]
        markdown = (await kb.document(document_id)).markdown
        listed = (await client.list_resources()).resources
        assert [str(r.uri) for r in listed] == [f"sheaf://documents/{document_id}"]
        templates = {t.uri_template for t in
                     (await client.list_resource_templates()).resource_templates}
        assert "sheaf://documents/{document_id}/sections/{section}" in templates

        text, uri = "", f"sheaf://documents/{document_id}"
        while uri:
            (content,) = (await client.read_resource(uri)).contents
            assert len(content.text) <= BUDGET * CHARACTERS_PER_TOKEN
            text += content.text
            uri = (content.meta or {}).get("next")
        assert text == markdown

        (sections,) = (await client.read_resource(
            f"sheaf://documents/{document_id}/sections")).contents
        listed_sections = json.loads(sections.text)["sections"]
        (part,) = (await client.read_resource(listed_sections[-1]["uri"])).contents
        assert part.text.startswith("## Part 6")
        assert markdown[part.meta["start"]:part.meta["end"]] == part.text
        (named,) = (await client.read_resource(
            f"sheaf://documents/{document_id}/sections/Part%203")).contents
        assert named.text.startswith("## Part 3")
        with pytest.raises(McpError, match="document_not_found"):
            await client.read_resource("sheaf://documents/doc_missing")


async def test_a_folder_ingest_reports_progress_per_file(kb: Knowledge, library: Path) -> None:
    heard: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total))

    async with connect(kb, library) as client:
        result = await client.call_tool("ingest_file", {"path": "."},
                                        progress_callback=progress)
    assert [r["status"] for r in result.structured_content["results"]] == ["new", "new"]
    assert heard == [(0, 2), (1, 2), (2, 2)]


async def test_cancelling_an_ingest_stops_the_fetch(tmp_path: Path, library: Path,
                                                    local_server: LocalServer) -> None:
    started, dropped = anyio.Event(), anyio.Event()
    heard: list[str | None] = []

    async def stalls(request: web.Request) -> web.StreamResponse:
        started.set()
        try:
            await anyio.sleep(60)
        finally:
            dropped.set()
        return web.Response(text="late")

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    local_server.route("/slow", stalls)
    local_server.add("/fast", "<html><head><title>Quick page</title></head><body><article>"
                     "<h1>Quick page</h1><p>It arrives at once and is stored.</p></article>"
                     "</body></html>", content_type="text/html")
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing",
                              allow_private_network=True) as kb, connect(kb, library) as client:
        # Started to allow private addresses (as a person can, a model cannot).
        fast = await client.call_tool("ingest_url", {"url": local_server.url("/fast")})
        assert fast.structured_content["status"] == "new"
        assert fast.structured_content["title"] == "Quick page"
        await kb.remove(fast.structured_content["document_id"])
        with anyio.move_on_after(1.6):
            await client.call_tool("ingest_url", {"url": local_server.url("/slow")},
                                   progress_callback=progress)
        with anyio.fail_after(5):
            await dropped.wait()
        assert started.is_set() and heard and "ingesting" in str(heard[0])
        after = await client.call_tool("list_documents", {})
        assert after.structured_content["documents"] == []


async def test_a_big_folder_ingest_counts_everything_and_lists_what_fits(
        kb: Knowledge, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(25):
        (folder / f"note-{number:02}.md").write_text(f"# Note {number}\n\nFact {number}.\n")
    async with connect(kb, folder) as client:
        result = await client.call_tool("ingest_file", {"path": "."})
    answer = result.structured_content
    assert answer["counts"] == {"new": 25}
    assert 0 < len(answer["results"]) < 25
    assert answer["omitted"] == {"results": 25 - len(answer["results"])}
    assert answer_size(result) <= BUDGET * CHARACTERS_PER_TOKEN
    assert len(await kb.documents()) == 25


async def test_a_pdf_is_cited_with_its_pages(kb: Knowledge, library: Path) -> None:
    words = ["urchin", "grazing", "holdfast", "canopy", "swell", "otter", "abalone", "frond",
             "drift", "tide", "storm", "current", "shelf", "reef", "larvae", "spore",
             "blade", "bulb", "stipe", "turf"]
    blocks = [("h1", "Kelp forests")]
    for part in range(1, 4):
        blocks.append(("h2", f"Station {part}"))
        blocks += [("p", f"Diver {part}-{n} saw " + " ".join(
            words[(n * 7 + part * 3 + k * k) % len(words)] for k in range(9)) + ".")
            for n in range(1, 40)]
    write_pdf_file(library / "kelp.pdf", blocks, title="Kelp forests")
    async with connect(kb, library) as client:
        ingested = await client.call_tool("ingest_file", {"path": "kelp.pdf"})
        document_id = ingested.structured_content["document_id"]
        markdown = (await kb.document(document_id)).markdown
        sentence = next(line for line in markdown.splitlines() if "Diver 3-30 " in line)
        found = await client.call_tool("search_knowledge", {
            "query": sentence, "document_id": document_id})
        assert found.structured_content["results"][0]["pages"]
        quoted = await client.call_tool("get_exact_quote", {
            "document_id": document_id, "text": sentence})
        quote = quoted.structured_content["quotes"][0]
        assert quote["pages"] and "page" in quoted.content[0].text
        read = await client.call_tool("read_document", {
            "document_id": document_id, "start": quote["start"], "end": quote["end"]})
        assert read.structured_content["pages"] == quote["pages"]
        assert read.structured_content["text"] == quote["text"]


async def test_a_folder_ingest_leaves_out_files_sheaf_cannot_read(kb: Knowledge,
                                                                  tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "note.md").write_text("# Note\n\nThe tide turned at noon.\n")
    (folder / "program.bin").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(200))
    async with connect(kb, folder) as client:
        result = await client.call_tool("ingest_file", {"path": "."})
    answer = result.structured_content
    assert answer["counts"] == {"new": 1} and answer["skipped"] == 1
