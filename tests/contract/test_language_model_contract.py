"""The LanguageModel contract, run against the fake and the OpenAI-compatible client (in
front of a loopback server speaking chat completions)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.models.memory_language_model import MemoryLanguageModel
from sheaf.adapters.models.openai_chat_model import OpenAiChatModel
from sheaf.application.ports.language_model import LanguageModel
from sheaf.domain.enrichment.enrichment_prompts import context_prompt, summary_prompt
from tests.chat_server import ChatServer

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "openai"])
async def model(request: pytest.FixtureRequest) -> AsyncIterator[LanguageModel]:
    if request.param == "memory":
        yield MemoryLanguageModel()
        return
    server = ChatServer()
    await server.start()
    client = OpenAiChatModel(server.url("/v1"), "test-chat", backoff=0.01)
    yield client
    await client.aclose()
    await server.stop()


async def test_answers_with_text_and_token_counts(model: LanguageModel) -> None:
    answer = await model.complete(summary_prompt("Tides", "Seagrass grew."), 100)
    assert '"summary"' in answer.text and answer.tokens > 0
    context = await model.complete(context_prompt("Tides", "Seagrass grew.",
                                                  "Seagrass grew.", ("Results",)), 50)
    assert context.text == "From Tides, in the part headed Results."
    assert model.name


async def test_the_same_prompt_gets_the_same_answer(model: LanguageModel) -> None:
    prompt = context_prompt("Tides", "Text.", "Text.", ("Methods",))
    assert (await model.complete(prompt, 50)).text == (await model.complete(prompt, 50)).text
