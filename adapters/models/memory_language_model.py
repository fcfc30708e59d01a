"""An in-memory language model for tests: scripted answers, a call log, token counts."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...domain.enrichment.completion import Completion
from ...domain.errors import SheafError


class MemoryLanguageModel:
    """Answers a summary prompt with JSON naming the document's title, and a context
    prompt with a sentence naming the passage's section; every answer costs `tokens`.
    `failure`, when set, is raised instead."""

    def __init__(self, name: str = "memory-model", tokens: int = 100) -> None:
        self._name = name
        self.tokens = tokens
        self.calls: list[list[dict[str, str]]] = []
        self.failure: SheafError | None = None

    @property
    def name(self) -> str:
        return self._name

    async def complete(self, messages: Sequence[dict[str, str]], max_tokens: int
                       ) -> Completion:
        self.calls.append(list(messages))
        if self.failure is not None:
            raise self.failure
        return Completion(answer_for(messages), self.tokens // 2, self.tokens - self.tokens // 2)

    async def aclose(self) -> None:
        return None


def answer_for(messages: Sequence[dict[str, str]]) -> str:
    """What a well-behaved model would say, deterministically."""
    prompt = messages[-1]["content"]
    title = prompt.split("\n", 1)[0].removeprefix("Title: ")
    if "<passage>" in prompt:
        section = prompt.split("Section: ", 1)[1].split("\n", 1)[0]
        return f"From {title}, in the part headed {section}."
    return "```json\n" + json.dumps({
        "summary": f"{title} is summarised here. It has findings. It has methods. "
                   "A fourth sentence is dropped.",
        "concepts": ["seagrass", "tides", "growth", "coasts", "ecology", "a sixth"]}) + "\n```"
