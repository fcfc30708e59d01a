"""An OpenAI-compatible `/v1/embeddings` client (OpenAI, vLLM, llama.cpp, LiteLLM, TEI...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .remote_embedder import RemoteEmbedder


class OpenAiEmbedder(RemoteEmbedder):
    """`base_url` is the API root with its version, as OpenAI's clients take it:
    `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`."""

    endpoint = "/embeddings"

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"model": self.model_name, "input": list(texts), "encoding_format": "float"}

    def vectors_of(self, answer: Any) -> list[list[float]]:
        # Entries carry their input's index; servers need not answer in order.
        items = sorted(answer["data"], key=lambda item: int(item["index"]))
        return [[float(x) for x in item["embedding"]] for item in items]
