"""A loopback server speaking the OpenAI `/v1/embeddings` and Ollama `/api/embed` protocols,
with the failures real servers show: overload, a context limit, a bad key."""

from __future__ import annotations

import json

from aiohttp import web

from sheaf.domain.search.feature_hashing import hashed_vector, word_features
from tests.local_server import LocalServer

DIMENSION = 24


def server_vector(text: str) -> list[float]:
    """What the server answers for `text`: deterministic, deliberately not unit length."""
    return [3.0 * x for x in hashed_vector(word_features(text) or [text], DIMENSION)]


class EmbeddingServer(LocalServer):
    """`max_characters` rejects longer inputs as too long; `overloaded` answers that many
    requests with 503 first; `key`, when set, is required as a bearer token."""

    def __init__(self) -> None:
        super().__init__()
        self.max_characters: int | None = None
        self.overloaded = 0
        self.key: str | None = None
        self.batches: list[list[str]] = []
        self.route("/v1/embeddings", self._openai)
        self.route("/api/embed", self._ollama)

    async def _check(self, request: web.Request) -> tuple[list[str], web.Response | None]:
        if self.key and request.headers.get("Authorization") != f"Bearer {self.key}":
            return [], web.json_response({"error": {"message": "Incorrect API key"}},
                                         status=401)
        body = json.loads(await request.read())
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if self.overloaded:
            self.overloaded -= 1
            return texts, web.json_response({"error": "overloaded"}, status=503,
                                            headers={"Retry-After": "0"})
        self.batches.append(texts)
        if self.max_characters is not None and any(len(t) > self.max_characters
                                                   for t in texts):
            return texts, web.json_response(
                {"error": {"message": "This model's maximum context length is 2048 tokens"}},
                status=400)
        return texts, None

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        texts, refusal = await self._check(request)
        if refusal is not None:
            return refusal
        data = [{"object": "embedding", "index": i, "embedding": server_vector(t)}
                for i, t in enumerate(texts)]
        return web.json_response({"object": "list", "model": "test-embed",
                                  "data": list(reversed(data))})  # order by index, not place

    async def _ollama(self, request: web.Request) -> web.StreamResponse:
        texts, refusal = await self._check(request)
        if refusal is not None:
            return refusal
        return web.json_response({"model": "test-embed",
                                  "embeddings": [server_vector(t) for t in texts]})
