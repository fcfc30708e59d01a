"""Verification as a user meets it: `sheaf quote --text` and `sheaf verify` answer the
issue's false yeses with exit 1 and what differs, and the CLI, HTTP, LLM tools and MCP
give the same record for the same check."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from mcp import Client

from sheaf import Knowledge
from sheaf.entrypoints.http.http_api import ApiSettings, build_app
from sheaf.entrypoints.http.openapi import openapi_document
from sheaf.entrypoints.mcp.server import ServerSettings, build_server
from tests.entrypoints.cli_runner import run_async

pytestmark = pytest.mark.anyio
CLAIM = ("The drug reduced mortality by 12 percent in the treated group. Patients did not "
         "report serious side effects.\n")
TRUE = "The drug reduced mortality by 12 percent in the treated group."
FALSE = "Patients did report serious side effects."


def slide_deck() -> bytes:
    """One slide whose only shape is a rectangle holding a sentence about itself."""
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Shapes"
    shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(2), Inches(4),
                                   Inches(1))
    shape.text_frame.text = "A rectangle shape with this text inside."
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[Path, str, str]]:
    (tmp_path / "claim.md").write_text(CLAIM)
    (tmp_path / "shapes.pptx").write_bytes(slide_deck())
    store = tmp_path / "kb.duckdb"
    async with Knowledge.open(store, embedder="hashing") as kb:
        claim = await kb.ingest(str(tmp_path / "claim.md"))
        deck = await kb.ingest(str(tmp_path / "shapes.pptx"))
    assert claim.document_id and deck.document_id
    yield store, claim.document_id, deck.document_id


def on(store: Path) -> tuple[str, ...]:
    return ("--store", str(store), "--embedder", "hashing")


@pytest.mark.parametrize(("which", "asked", "kind", "asked_words", "document_words"), [
    ("claim", "The drug increased mortality by 12 percent in the treated group.",
     "word_replaced", "increased", "reduced"),
    ("claim", "The drug reduced mortality by 21 percent in the treated group.",
     "number_changed", "21", "12"),
    ("claim", FALSE, "negation_removed", "", "not"),
    ("deck", "A triangle shape with this text inside.", "word_replaced", "triangle",
     "rectangle"),
])
async def test_the_issues_table_is_not_verified_with_its_differences(
        store: tuple[Path, str, str], which: str, asked: str, kind: str, asked_words: str,
        document_words: str) -> None:
    path, claim, deck = store
    document = claim if which == "claim" else deck
    result = await run_async("quote", document, "--text", asked, "--json", *on(path))
    assert result.exit_code == 1, result.output
    check = json.loads(result.stdout)
    assert check["status"] == "not_verified" and check["quotes"] == []
    closest = check["closest"]
    assert closest["status"] == "not_verified" and closest["document_id"] == document
    assert [(d["kind"], d["request"], d["document"]) for d in closest["differences"]] == [
        (kind, asked_words, document_words)]
    shown = await run_async("quote", document, "--text", asked, *on(path))
    assert shown.exit_code == 1
    assert kind in shown.stderr and "closest passage" in shown.stderr


async def test_the_exact_sentences_are_verified(store: tuple[Path, str, str]) -> None:
    path, claim, deck = store
    for document, sentence in ((claim, TRUE), (claim, CLAIM.split(". ")[1].strip()),
                               (deck, "A rectangle shape with this text inside.")):
        result = await run_async("quote", document, "--text", sentence, "--json", *on(path))
        assert result.exit_code == 0, result.output
        (passage,) = [json.loads(line) for line in result.stdout.splitlines()]
        assert passage["status"] == "verified" and passage["text"] == sentence
        assert passage["differences"] == []


async def test_locate_is_an_explicit_mode_and_never_verified(
        store: tuple[Path, str, str]) -> None:
    path, claim, _ = store
    result = await run_async("quote", claim, "--text", FALSE, "--locate", "--json",
                             *on(path))
    assert result.exit_code == 0, result.output
    (passage,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert passage["status"] == "located" and passage["match"] == "fuzzy"
    assert [d["kind"] for d in passage["differences"]] == ["negation_removed"]
    lone = await run_async("quote", claim, "--locate", "--sentence", "1", *on(path))
    assert lone.exit_code == 2


async def test_sheaf_verify_checks_each_sentence(store: tuple[Path, str, str]) -> None:
    path, claim, _ = store
    both = await run_async("verify", f"{TRUE} {FALSE}", "--json", *on(path))
    assert both.exit_code == 1, both.output
    record = json.loads(both.stdout)
    assert record["status"] == "not_verified"
    first, second = record["sentences"]
    assert first["status"] == "verified" and first["support"][0]["document_id"] == claim
    assert first["support"][0]["start"] == 0 and first["support"][0]["text"] == TRUE
    assert second["status"] == "not_verified" and second["support"] == []
    assert second["closest"]["differences"][0]["kind"] == "negation_removed"
    alone = await run_async("verify", TRUE, *on(path))
    assert alone.exit_code == 0 and alone.stdout.startswith("verified: ")
    unknown = await run_async("verify", "Volcanic ash grounded every flight over Iceland.",
                              "--json", *on(path))
    assert unknown.exit_code == 1
    assert json.loads(unknown.stdout)["sentences"][0] == {
        "sentence": "Volcanic ash grounded every flight over Iceland.",
        "status": "not_found", "support": [], "closest": None}
    scoped = await run_async("verify", TRUE, "--doc", "nope", *on(path))
    assert scoped.exit_code == 1 and "document_not_found" in scoped.stderr


async def test_every_interface_gives_the_same_record(store: tuple[Path, str, str],
                                                    tmp_path: Path) -> None:
    path, claim, _ = store
    cli_quote = json.loads((await run_async("quote", claim, "--text", FALSE, "--json",
                                            *on(path))).stdout)
    cli_claim = json.loads((await run_async("verify", TRUE, "--json", *on(path))).stdout)
    cli_false = json.loads((await run_async("verify", FALSE, "--json", *on(path))).stdout)
    async with Knowledge.open(path, embedder="hashing") as kb:
        tool_quote = await kb.call_tool("get_exact_quote", {"document_id": claim,
                                                            "text": FALSE})
        tool_claim = await kb.call_tool("verify_claim", {"claim": TRUE})
        tool_false = await kb.call_tool("verify_claim", {"claim": FALSE})
        async with Client(build_server(kb, ServerSettings.of())) as client:
            mcp_quote = await client.call_tool("get_exact_quote", {"document_id": claim,
                                                                   "text": FALSE})
            mcp_claim = await client.call_tool("verify_claim", {"claim": TRUE})
            mcp_false = await client.call_tool("verify_claim", {"claim": FALSE})
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "uploads")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        try:
            async with aiohttp.ClientSession() as session:
                async def post(route: str, body: dict[str, Any], status: int) -> Any:
                    async with session.post(base + route, json=body) as response:
                        assert response.status == status, await response.text()
                        return await response.json(content_type=None)

                http_quote = await post("/v1/quote", {"document_id": claim, "text": FALSE},
                                        404)
                http_claim = await post("/v1/verify", {"claim": TRUE}, 200)
                http_false = await post("/v1/verify", {"claim": FALSE}, 404)
                located = await post("/v1/quote", {"document_id": claim, "text": FALSE,
                                                   "mode": "locate"}, 200)
        finally:
            await runner.cleanup()
    assert cli_quote["status"] == "not_verified"
    assert http_quote["kind"] == "quote_not_found"
    assert cli_quote == http_quote["verification"] == tool_quote["error"]["verification"]
    assert mcp_quote.is_error
    assert mcp_quote.structured_content["error"]["verification"] == cli_quote
    assert "negation_removed" in tool_quote["error"]["message"]
    assert cli_claim["status"] == "verified"
    assert cli_claim == http_claim == tool_claim == mcp_claim.structured_content
    assert not mcp_claim.is_error and TRUE in mcp_claim.content[0].text
    assert cli_false == http_false["verification"] == tool_false["error"]["verification"]
    assert http_false["kind"] == tool_false["error"]["kind"] == "claim_not_verified"
    assert mcp_false.is_error and mcp_false.structured_content["error"]["verification"] == \
        cli_false
    assert "closest passage" in mcp_false.content[0].text
    assert located["status"] == "located"
    assert located["quotes"][0]["differences"][0]["kind"] == "negation_removed"


def test_descriptions_say_what_verified_means() -> None:
    from sheaf.domain.quotes.tolerances import TOLERANCES

    tools = {t["name"]: t for t in Knowledge.tools("anthropic")}
    paths = openapi_document()["paths"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    described = [tools["get_exact_quote"]["description"], tools["verify_claim"]["description"],
                 paths["/v1/quote"]["post"]["description"],
                 paths["/v1/verify"]["post"]["description"]]
    for text in described:
        assert "verified means" in text
        for tolerance in TOLERANCES:
            assert tolerance.value.replace("_", " ") in text, (tolerance, text[:60])
    for tolerance in TOLERANCES:
        assert f"`{tolerance.value}`" in readme, tolerance
