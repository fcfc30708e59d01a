"""An OpenAI-compatible chat-completions client: OpenAI, Ollama (`/v1`), vLLM, llama.cpp
server and most hosted providers speak it."""

from __future__ import annotations

from collections.abc import Sequence

import anyio

from ...domain.enrichment.completion import Completion
from ...domain.errors import ErrorKind, SheafError
from .json_api_client import InputTooLong, JsonApiClient


class OpenAiChatModel:
    """`base_url` is the API root with its version (`http://127.0.0.1:11434/v1` for
    Ollama). At most `concurrency` requests are in flight; retries as the JSON client's.
    Temperature 0: enrichment should repeat itself."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 concurrency: int = 4, retries: int = 4, timeout: float = 120.0,
                 backoff: float = 0.5) -> None:
        self._model = model
        self._client = JsonApiClient(base_url, api_key=api_key, failure=ErrorKind.LLM_FAILED,
                                     what="language model server", retries=retries,
                                     timeout=timeout, backoff=backoff)
        self._limit = anyio.Semaphore(concurrency)

    @property
    def name(self) -> str:
        return self._model

    async def complete(self, messages: Sequence[dict[str, str]], max_tokens: int
                       ) -> Completion:
        body = {"model": self._model, "messages": list(messages), "max_tokens": max_tokens,
                "temperature": 0}
        async with self._limit:
            try:
                answer = await self._client.post("/chat/completions", body)
            except InputTooLong as exc:
                raise SheafError(ErrorKind.LLM_FAILED,
                                 f"{self._model} refused the prompt as too long: {exc}"
                                 ) from None
        try:
            text = answer["choices"][0]["message"]["content"] or ""
            usage = answer.get("usage") or {}
            return Completion(str(text), int(usage.get("prompt_tokens") or 0),
                              int(usage.get("completion_tokens") or 0))
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise SheafError(ErrorKind.LLM_FAILED,
                             f"unreadable answer from {self._model}: {exc!r}") from None

    async def aclose(self) -> None:
        await self._client.aclose()
