"""The MCP server's prompts (cite a passage, summarise a document with citations, check a
claim) and the text of a get_document answer, through the SDK's own client."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError as McpError

from sheaf import Knowledge
from sheaf.entrypoints.mcp.server import ServerSettings, build_server

pytestmark = pytest.mark.anyio
NOTE = "Swimming in the lake is cold in spring. The herons leave in the autumn.\n"


@pytest.fixture
async def kb(tmp_path: Path) -> AsyncIterator[Knowledge]:
    async with Knowledge.open(tmp_path / "kb.duckdb", embedder="hashing") as opened:
        yield opened


async def test_the_prompts_are_listed_with_their_arguments(kb: Knowledge) -> None:
    async with Client(build_server(kb, ServerSettings.of())) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        tools = {t.name for t in (await client.list_tools()).tools}
        assert set(prompts) == {"cite_passage", "summarise_document", "check_claim"}
        required = {name: {a.name for a in p.arguments or [] if a.required}
                    for name, p in prompts.items()}
        assert required == {"cite_passage": {"topic"}, "summarise_document":
                            {"document_id"}, "check_claim": {"claim"}}
        for name, prompt in prompts.items():
            assert prompt.description
            arguments = {a.name: f"value of {a.name}" for a in prompt.arguments or []}
            got = await client.get_prompt(name, arguments)
            (message,) = got.messages
            text = message.content.text
            assert message.role == "user"
            for value in arguments.values():
                assert value in text
            # Every tool it tells the model to use is one this server has.
            named = set(re.findall(r"\b[a-z]+_[a-z_]+\b", text)) - set(arguments)
            assert named & {"get_exact_quote", "search_knowledge"}, name
            assert {n for n in named if n.startswith(("get_", "search_", "read_"))} \
                <= tools, name
            assert "quote_not_found" in text


async def test_a_prompt_without_its_document_looks_everywhere(kb: Knowledge) -> None:
    async with Client(build_server(kb, ServerSettings.of())) as client:
        got = await client.get_prompt("check_claim", {"claim": "Herons stay all winter."})
        text = got.messages[0].content.text
        assert "against the knowledge base: Herons stay all winter." in text
        assert "{" not in text


async def test_a_bad_prompt_call_names_what_is_wrong(kb: Knowledge) -> None:
    async with Client(build_server(kb, ServerSettings.of())) as client:
        with pytest.raises(McpError, match="needs claim"):
            await client.get_prompt("check_claim", {})
        with pytest.raises(McpError, match="takes no argument colour"):
            await client.get_prompt("check_claim", {"claim": "x", "colour": "red"})
        with pytest.raises(McpError, match="no prompt 'poem'"):
            await client.get_prompt("poem", {})


async def test_get_document_text_names_the_document(kb: Knowledge, tmp_path: Path) -> None:
    note = tmp_path / "lake.txt"
    note.write_text(NOTE)
    result = await kb.ingest(str(note))
    async with Client(build_server(kb, ServerSettings.of())) as client:
        got = await client.call_tool("get_document", {"document_id": result.document_id})
        text = got.content[0].text
        assert "None" not in text
        first = text.splitlines()[0]
        assert first == f"{result.document_id}: lake ({note})"  # titled after its file
        assert re.search(rf"\(text/plain\), \d+ characters, version "
                         rf"{result.document_id}\.v1 of 1$", text.splitlines()[1])
