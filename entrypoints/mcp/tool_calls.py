"""Running MCP tool calls on a knowledge base, each answer within the output budget.

The shared tools run through the dispatcher of `Knowledge.call_tool`, so an MCP answer
holds the very records the LLM tools return; the server only pages them. Arguments are
checked once, here, by the same schema checker the LLM tools use. Its own tools use
`KnowledgeApi`'s methods, and answer with `serialisation`'s records.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
import attrs

from ...domain.errors import ErrorKind, SheafError, first_failure
from ..api import serialisation
from ..api.agent_tools import checked_against, run_checked_tool
from ..api.knowledge_api import KnowledgeApi
from .allowed_folders import AllowedFolders
from .answer_text import answer_text
from .document_sections import section_span
from .output_budget import (
    OutputBudget,
    decode_cursor,
    encode_cursor,
    fit_items,
    sentence_cut,
    size_of,
)
from .tool_catalogue import PAGED_LISTS, ToolSpec

Progress = Callable[[float, float | None, str], Awaitable[None]]
"""Reports progress: done so far, the total when known, and what is happening."""

HEARTBEAT_SECONDS = 1.0
T = TypeVar("T")
_UNUSABLE_PATH = frozenset({errno.ENAMETOOLONG, errno.EINVAL, errno.ELOOP})


@attrs.frozen
class ToolAnswer:
    """What one call returns: structured content, its text rendering, and whether it
    is an error the model should read and correct."""

    structured: dict[str, Any]
    text: str
    is_error: bool = False


async def _no_progress(done: float, total: float | None, message: str) -> None:
    return None


class ToolCalls:
    """Validates, runs and sizes tool calls for one server."""

    def __init__(self, knowledge: KnowledgeApi, tools: dict[str, ToolSpec],
                 folders: AllowedFolders, budget: OutputBudget) -> None:
        self._knowledge = knowledge
        self._tools = tools
        self._folders = folders
        self._budget = budget

    async def call(self, name: str, arguments: dict[str, Any] | None,
                   progress: Progress = _no_progress) -> ToolAnswer:
        """Run one call; failures come back as an error answer naming the kind."""
        try:
            given = dict(arguments or {})
            self._check(name, given)
            cursor = given.pop("cursor", None)
            skip = decode_cursor(name, given, cursor) if cursor is not None else 0
            answer = await self._run(name, given, progress)
            if isinstance(answer, _DocumentRange):
                return await self._range(name, answer)
            if "error" in answer and "verification" in answer["error"]:
                # A verification that did not verify: an error the model must read,
                # with the record that says what the document does say.
                return ToolAnswer(answer, answer_text(name, answer), is_error=True)
            if "error" in answer:
                raise SheafError(ErrorKind(answer["error"]["kind"]),
                                 answer["error"]["message"])
            answer = _echoes_shortened(answer, given, self._budget.characters // 8)
            if name in PAGED_LISTS and PAGED_LISTS[name] in answer:
                return self._page(name, given, answer, skip)
            return self._within(name, answer)
        except SheafError as exc:
            return self._failure(name, exc)
        except OSError as exc:  # a path the system refuses (too long, a loop): typed,
            # and without the server's own paths the exception names
            kind = ErrorKind.INVALID_QUERY if exc.errno in _UNUSABLE_PATH else \
                ErrorKind.INPUT_NOT_FOUND
            return self._failure(name, SheafError(
                kind, f"the path cannot be used: {exc.strerror or type(exc).__name__}"))

    def _failure(self, name: str, exc: SheafError) -> ToolAnswer:
        """The error answer, its message cut to fit the budget: a message may quote
        what the call gave (a 100,000-character id), and the budget holds for errors."""
        failure = serialisation.error_answer(exc)
        message: str = failure["error"]["message"]
        text = answer_text(name, failure)
        over = size_of(failure, text) - self._budget.characters
        if over > 0:
            # The message is sent twice (JSON and text); JSON may escape it longer.
            keep = max(0, len(message) - over - 64) // 2
            cut = f"{message[:keep]}… ({len(message) - keep} characters cut)"
            failure = {"error": {**failure["error"], "message": cut}}
            text = answer_text(name, failure)
        return ToolAnswer(failure, text, is_error=True)

    def _check(self, name: str, arguments: dict[str, Any]) -> None:
        tool = self._tools.get(name)
        if tool is None:
            raise SheafError(ErrorKind.INVALID_QUERY,
                             f"unknown tool {name!r}; tools: {', '.join(self._tools)}")
        checked_against(name, tool.input_schema, arguments)

    async def _run(self, name: str, arguments: dict[str, Any],
                   progress: Progress) -> dict[str, Any] | _DocumentRange:
        if name in ("ingest_url", "crawl_site"):
            verb = "ingesting" if name == "ingest_url" else "crawling from"
            return await _with_heartbeat(
                run_checked_tool(self._knowledge, name, arguments), progress,
                f"{verb} {arguments['url']}")
        if self._tools[name].shared:
            return await run_checked_tool(self._knowledge, name, arguments)
        if name == "ingest_file":
            return await self._ingest_file(arguments, progress)
        if name == "read_document":
            return await self._read(arguments)
        record = await self._knowledge.remove(str(arguments["document_id"]))
        return {"removed": serialisation.document_summary(record)}

    async def _ingest_file(self, arguments: dict[str, Any],
                           progress: Progress) -> dict[str, Any]:
        # Path resolution and the folder walk touch the disk: off the event loop, so one
        # client's large folder does not stall the others.
        real = await anyio.to_thread.run_sync(self._folders.resolve, str(arguments["path"]))
        metadata = arguments.get("metadata")
        roots = [str(root) for root in self._folders.roots]
        if await anyio.to_thread.run_sync(real.is_file):
            # The name was checked; the file read is checked again as it is opened, so a
            # swap for a link in between is refused (ADR-0029).
            result = await _with_heartbeat(
                self._knowledge.ingest(str(real), metadata=metadata, confined_to=roots),
                progress, f"ingesting {real.name}")
            if result.error_kind:
                raise SheafError(ErrorKind(result.error_kind), result.message or "failed")
            return serialisation.ingest_result(result)
        # The files sheaf can read (the same listing `sheaf ingest DIR` uses), kept only
        # where their real path stays inside the allowed folders (links may point away).
        listing = await self._knowledge.listing([str(real)], recursive=True)

        def allowed() -> list[Path]:
            inside = set(self._folders.files_under(real))
            return [path for path in map(Path, listing.files) if path.resolve() in inside]

        files = await anyio.to_thread.run_sync(allowed)
        results = []
        await progress(0, len(files), f"{len(files)} files under {real.name}")
        for done, path in enumerate(files, start=1):
            result = await self._knowledge.ingest(str(path), metadata=metadata,
                                                  confined_to=roots)
            results.append(result)
            await progress(done, len(files), f"{result.status.value}: {path.name}")
        return serialisation.folder_ingest(str(real), results, len(listing.skipped))

    async def _read(self, arguments: dict[str, Any]) -> _DocumentRange:
        reference = str(arguments["document_id"])
        stored = await self._knowledge.document(reference)
        markdown = stored.markdown
        if "section" in arguments:
            if "start" in arguments or "end" in arguments:
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 "read_document takes a section or a range, not both")
            start, end = await section_span(self._knowledge, reference,
                                            str(arguments["section"]))
        else:
            start = int(arguments.get("start", 0))
            end = int(arguments.get("end", len(markdown)))
            if not start <= end <= len(markdown):
                raise SheafError(ErrorKind.OUT_OF_RANGE,
                                 f"document {stored.id} has {len(markdown)} characters; "
                                 f"asked for {start}-{end}")
        sections = await self._knowledge.sections(stored.id)
        inside = [s for s in sections if s.start <= start < s.end or s.start == start]
        path = max(inside, key=lambda s: s.level).path if inside else ()
        return _DocumentRange(markdown, end,
                              serialisation.document_range(stored, path, start, end))

    # -- sizing ----------------------------------------------------------------------
    def _page(self, name: str, arguments: dict[str, Any], answer: dict[str, Any],
              skip: int) -> ToolAnswer:
        key = PAGED_LISTS[name]
        items: list[Any] = answer[key]
        rest = {k: v for k, v in answer.items() if k != key}

        def build(shown: Sequence[Any], cursor: str | None) -> dict[str, Any]:
            return {**rest, key: list(shown), "total": len(items), "shown_from": skip,
                    "shown_to": skip + len(shown), "next_cursor": cursor}

        def measure(shown: Sequence[Any], cursor: str | None) -> int:
            built = build(shown, cursor)
            return size_of(built, answer_text(name, built))

        page = fit_items(items, skip, lambda n: encode_cursor(name, arguments, n), measure,
                         self._budget.characters, _shortened)
        built = build(page.items, page.next_cursor)
        return ToolAnswer(built, answer_text(name, built))

    def _within(self, name: str, answer: dict[str, Any]) -> ToolAnswer:
        """`answer`, or when it is over the budget its longest list cut to what fits,
        with `omitted` counting what was left out."""
        text = answer_text(name, answer)
        lists = [key for key, value in answer.items() if isinstance(value, list) and value]
        if size_of(answer, text) <= self._budget.characters or not lists:
            return ToolAnswer(answer, text)
        key = max(lists, key=lambda k: size_of(answer[k], ""))
        items: list[Any] = answer[key]

        def build(shown: Sequence[Any]) -> dict[str, Any]:
            return {**answer, key: list(shown), "omitted": {key: len(items) - len(shown)}}

        def measure(shown: Sequence[Any], _: str | None) -> int:
            built = build(shown)
            return size_of(built, answer_text(name, built))

        page = fit_items(items, 0, lambda _: "", measure, self._budget.characters,
                         _shortened)
        built = build(page.items)
        return ToolAnswer(built, answer_text(name, built))

    async def _range(self, name: str, wanted: _DocumentRange) -> ToolAnswer:
        markdown, until = wanted.markdown, wanted.end
        answer = wanted.answer
        start: int = answer["start"]
        # Room for `next` and the pages, filled in once the cut is known.
        overhead = size_of(answer, answer_text(name, answer)) + 300
        room = max(1, (self._budget.characters - overhead) // 2)  # JSON and text each
        while True:
            cut = sentence_cut(markdown, start, until, room)
            following = serialisation.document_span(answer["document_id"], cut, until) \
                if cut < until else None
            built = {**answer, "end": cut, "text": markdown[start:cut], "next": following,
                     "pages": await self._pages(answer["document_id"], markdown, start, cut)}
            text = answer_text(name, built)
            if size_of(built, text) <= self._budget.characters or room <= 1:
                return ToolAnswer(built, text)
            room = max(1, room * 4 // 5)  # JSON escapes made it longer than counted

    async def _pages(self, document_id: str, markdown: str, start: int, end: int
                     ) -> list[int]:
        """The pages of the lines a span lies on, as a quote of those lines finds them."""
        numbers = _line_numbers(markdown, start, end)
        if numbers is None:
            return []
        (lines,) = await self._knowledge.quote(document_id, lines=numbers)
        return list(lines.pages)


def _line_numbers(markdown: str, start: int, end: int) -> tuple[int, int] | None:
    """The first and last line (counted from 1, blank lines not counted, as quotes count
    them) that `markdown[start:end]` touches; None when it touches only blank lines."""
    number, first, last, cursor = 0, None, None, 0
    for line in markdown.split("\n"):
        if cursor >= end:
            break
        line_end = cursor + len(line)
        if line.strip():
            number += 1
            if line_end > start:
                first = number if first is None else first
                last = number
        cursor = line_end + 1
    return (first, last) if first is not None and last is not None else None


@attrs.frozen
class _DocumentRange:
    """A span of a document to send as much of as the budget allows."""

    markdown: str
    end: int
    answer: dict[str, Any]


def _echoes_shortened(answer: dict[str, Any] | _DocumentRange, given: dict[str, Any],
                      room: int) -> Any:
    """`answer` with any top-level string that repeats an argument (a search's `query`)
    cut to `room` characters: what the caller sent need not come back whole, and a
    35,000-character query echoed whole broke the budget."""
    if not isinstance(answer, dict):
        return answer
    echoed = {value for value in given.values() if isinstance(value, str)
              and len(value) > room}
    return {key: (f"{value[:room]}… ({len(value) - room} characters cut)"
                  if isinstance(value, str) and value in echoed else value)
            for key, value in answer.items()}


def _shortened(item: Any, room: int) -> Any:
    """A passage cut after its last whole sentence within `room` characters, saying where
    it goes on. The text a rendering shows is sent twice (in the JSON and the text), so
    it gets half the room; with an expanded context that is the context's text, and the
    hit's own text (inside it) keeps a quarter."""
    if not isinstance(item, dict) or not {"text", "start", "end", "document_id"} <= set(item):
        return item
    text: str = item["text"]
    context = item.get("context")
    if isinstance(context, dict) and isinstance(context.get("text"), str):
        own = text[:sentence_cut(text, 0, len(text), room // 4)] if room >= 4 else ""
        wide: str = context["text"]
        left = (room - len(own)) // 2
        cut = sentence_cut(wide, 0, len(wide), left) if left > 0 else 0
        return {**item, "text": own, "context": {**context, "text": wide[:cut]},
                "continues": serialisation.document_span(
                    item["document_id"], context["start"] + cut, context["end"])}
    cut = sentence_cut(text, 0, len(text), room // 2) if room >= 2 else 0
    return {**item, "text": text[:cut],
            "continues": serialisation.document_span(item["document_id"],
                                                     item["start"] + cut, item["end"])}


async def _with_heartbeat(work: Awaitable[T], progress: Progress, what: str) -> T:
    """Await `work`, reporting the seconds it has taken every second until it is done:
    one ingest has no steps a client could count, but a client that hears nothing for
    long may give up on it. Cancelling the call cancels the work."""
    began = time.monotonic()

    async def beat() -> None:
        while True:
            await anyio.sleep(HEARTBEAT_SECONDS)
            elapsed = time.monotonic() - began
            await progress(elapsed, None, f"{what}: {elapsed:.0f} s")

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            try:
                return await work
            finally:
                group.cancel_scope.cancel()
    except ExceptionGroup as group:
        raise first_failure(group) from None
