"""A loopback server speaking OpenAI's chat-completions protocol, with failures."""

from __future__ import annotations

import json

from aiohttp import web

from sheaf.adapters.models.memory_language_model import answer_for
from tests.local_server import LocalServer


class ChatServer(LocalServer):
    """Answers as `MemoryLanguageModel` would, reporting 50 prompt and 20 completion
    tokens; `failing` answers that many requests with `failure_status` first."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = 0
        self.failure_status = 500
        self.requests: list[dict[str, object]] = []
        self.route("/v1/chat/completions", self._chat)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = json.loads(await request.read())
        self.requests.append(body)
        if self.failing:
            self.failing -= 1
            return web.json_response({"error": {"message": "model crashed"}},
                                     status=self.failure_status)
        return web.json_response({
            "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": answer_for(body["messages"])}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}})
