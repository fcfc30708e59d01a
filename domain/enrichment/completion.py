"""What a language model answered, with the tokens it counted."""

from __future__ import annotations

import attrs


@attrs.frozen
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens
