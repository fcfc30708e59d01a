"""The chat-completions client against a loopback server: retries, typed failures."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.models.openai_chat_model import OpenAiChatModel
from sheaf.domain.enrichment.enrichment_prompts import summary_prompt
from sheaf.domain.errors import ErrorKind, SheafError
from tests.chat_server import ChatServer

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server() -> AsyncIterator[ChatServer]:
    found = ChatServer()
    await found.start()
    yield found
    await found.stop()


async def test_overload_is_retried_and_usage_read(server: ChatServer) -> None:
    model = OpenAiChatModel(server.url("/v1"), "test-chat", backoff=0.01)
    server.failing, server.failure_status = 2, 503
    answer = await model.complete(summary_prompt("Tides", "Text."), 100)
    assert answer.prompt_tokens == 50 and answer.completion_tokens == 20
    assert len(server.requests) == 3
    assert server.requests[-1]["temperature"] == 0 and server.requests[-1]["max_tokens"] == 100
    await model.aclose()


async def test_a_server_error_is_a_typed_failure_at_once(server: ChatServer) -> None:
    model = OpenAiChatModel(server.url("/v1"), "test-chat", backoff=0.01)
    server.failing, server.failure_status = 1, 500
    with pytest.raises(SheafError) as caught:
        await model.complete(summary_prompt("Tides", "Text."), 100)
    assert caught.value.kind is ErrorKind.LLM_FAILED and "500" in caught.value.message
    assert len(server.requests) == 1
    await model.aclose()


async def test_an_unreachable_server_is_typed() -> None:
    model = OpenAiChatModel("http://127.0.0.1:9/v1", "test-chat", retries=1, backoff=0.01)
    with pytest.raises(SheafError) as caught:
        await model.complete(summary_prompt("Tides", "Text."), 100)
    assert caught.value.kind is ErrorKind.LLM_FAILED
    await model.aclose()
