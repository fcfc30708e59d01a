"""How much one MCP answer may hold, and where to cut so nothing is left half-said.

MCP clients refuse or truncate large tool results (25k tokens is a common limit, and a
model's context pays for every token), so every answer is sized against a budget counted
the way the rest of sheaf counts tokens: about four characters each. Lists are cut
between items and continued by a cursor; one long text is cut after its last whole
sentence and continued by the next character range.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ...domain.analysis.sentences import sentence_spans
from ...domain.errors import ErrorKind, SheafError

DEFAULT_TOKEN_BUDGET = 8000
MINIMUM_TOKEN_BUDGET = 200
CHARACTERS_PER_TOKEN = 4  # the estimate of sheaf.domain.analysis.chunking.estimate_tokens
# Sentences are looked for a little past the limit, so the last one inside it is known
# to be whole without splitting the rest of a long document.
_LOOKAHEAD = 2000


@attrs.frozen
class OutputBudget:
    """At most `tokens` tokens (estimated) in one answer."""

    tokens: int = DEFAULT_TOKEN_BUDGET

    def __attrs_post_init__(self) -> None:
        if self.tokens < MINIMUM_TOKEN_BUDGET:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"an output budget of {self.tokens} tokens is too small; "
                             f"{MINIMUM_TOKEN_BUDGET} at least")

    @property
    def characters(self) -> int:
        return self.tokens * CHARACTERS_PER_TOKEN


def size_of(structured: object, text: str) -> int:
    """Characters an answer sends: its JSON and its text rendering."""
    return len(json.dumps(structured, ensure_ascii=False)) + len(text)


def sentence_cut(text: str, start: int, end: int, limit: int) -> int:
    """Where to stop reading `text[start:end]` to keep at most `limit` characters: after
    the last whole sentence that fits; failing one, at the last line break or space that
    fits (a single sentence longer than the whole budget); `end` when it all fits."""
    if end - start <= limit:
        return end
    horizon = min(end, start + limit + _LOOKAHEAD)
    spans = sentence_spans(text, start, horizon)
    if horizon < end and spans:
        spans = spans[:-1]  # may run on past the horizon
    whole = [stop for _, stop in spans if stop <= start + limit]
    if whole and whole[-1] > start:
        return whole[-1]
    window = text[start:start + limit]
    for separator in ("\n", " "):
        found = window.rfind(separator)
        if found > 0:
            return start + found
    return start + max(1, limit)


@attrs.frozen
class Page:
    """The items shown and the cursor to the rest (None when nothing is left)."""

    items: tuple[Any, ...]
    next_cursor: str | None
    total: int


def fit_items(items: Sequence[Any], skip: int, cursor_for: Callable[[int], str],
              measure: Callable[[Sequence[Any], str | None], int], limit: int,
              shorten: Callable[[Any, int], Any]) -> Page:
    """The longest run of `items[skip:]` whose answer (`measure`, given the shown items
    and the cursor) stays within `limit`. When not even the first fits, that one is
    `shorten`ed to what is left after the rest of the answer."""
    remaining = list(items[skip:])
    total = len(items)
    shown: list[Any] = []
    for index, item in enumerate(remaining):
        following = skip + index + 1
        cursor = cursor_for(following) if following < total else None
        if measure([*shown, item], cursor) > limit:
            break
        shown.append(item)
    if not shown and remaining:
        cursor = cursor_for(skip + 1) if skip + 1 < total else None
        overhead = measure([shorten(remaining[0], 0)], cursor)
        shown.append(shorten(remaining[0], max(1, limit - overhead)))
    following = skip + len(shown)
    return Page(tuple(shown), cursor_for(following) if following < total else None, total)


def encode_cursor(tool: str, arguments: dict[str, Any], skip: int) -> str:
    """An opaque cursor: how many items were shown, bound to the call it continues."""
    payload = {"skip": skip, "call": _call_digest(tool, arguments)}
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def decode_cursor(tool: str, arguments: dict[str, Any], cursor: str) -> int:
    """The items a cursor says were shown; `invalid_query` for a cursor of another call
    (other arguments) or one that is not a cursor at all."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
        skip, call = int(payload["skip"]), str(payload["call"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SheafError(ErrorKind.INVALID_QUERY, f"not a cursor sheaf gave: {exc}") from None
    if call != _call_digest(tool, arguments) or skip < 0:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "this cursor continues a call with other arguments; repeat the "
                         "same arguments with it")
    return skip


def _call_digest(tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps([tool, arguments], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
