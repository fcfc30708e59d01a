"""An Ollama `/api/embed` client (batched inputs, Ollama 0.3.4 and later)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .remote_embedder import RemoteEmbedder


class OllamaEmbedder(RemoteEmbedder):
    """`base_url` is the server root, `http://127.0.0.1:11434` by default in Ollama.
    Ollama truncates over-long inputs itself unless told not to; sheaf asks it not to,
    so a cut is sheaf's own, halving, and counted in `truncated`."""

    endpoint = "/api/embed"

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"model": self.model_name, "input": list(texts), "truncate": False}

    def vectors_of(self, answer: Any) -> list[list[float]]:
        return [[float(x) for x in vector] for vector in answer["embeddings"]]
