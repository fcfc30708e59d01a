"""The loopback API a store's holder serves to the other sheaf processes of its user
(ADR-0022): every `KnowledgeApi` operation, its result in `value_codec`'s plain form
(`held_operations` says how), behind the token of the holder file.

It is not the public HTTP API: its answers are the records themselves rather than their
public JSON, so `HeldKnowledge` decodes them back exactly, and error details keep their
paths (the user is talking to their own process, and a direct run names them).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

import attrs
from aiohttp import web

from ...domain.errors import ErrorKind, SheafError
from ...domain.routing.directory_listing import DirectoryListing
from ...domain.values.value_codec import from_plain, to_plain
from ..api.knowledge_api import KnowledgeApi
from ..http.bearer_token import bearer_matches
from ..http.problem_details import problem, status_of
from .held_operations import OPERATIONS_PATH

logger = logging.getLogger("sheaf.holder")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Operation = Callable[[KnowledgeApi, dict[str, Any]], Awaitable[object]]


@attrs.define
class HeldRequests:
    """The requests the holder is answering, and when the last one ended: a holder that
    is done waits for them, and for the connections still open to go quiet."""

    running: int = 0
    ended: float = attrs.field(factory=time.monotonic)


KNOWLEDGE = web.AppKey("knowledge", KnowledgeApi)
TOKEN = web.AppKey("token", str)
REQUESTS = web.AppKey("requests", HeldRequests)


def _search(kb: KnowledgeApi, given: dict[str, Any]) -> Awaitable[object]:
    metadata = given.pop("metadata", None)
    pairs = None if metadata is None else tuple((str(k), str(v)) for k, v in metadata)
    return kb.search(**given, metadata=pairs)


def _quote(kb: KnowledgeApi, given: dict[str, Any]) -> Awaitable[object]:
    lines = given.pop("lines", None)
    return kb.quote(**given, lines=None if lines is None else (int(lines[0]), int(lines[1])))


# Each operation called as `HeldKnowledge` asks for it: the method's own arguments, by
# name, as JSON gives them (a pair list where the method takes tuples).
_OPERATIONS: dict[str, Operation] = {
    "ingest": lambda kb, given: kb.ingest(**given),
    "listing": lambda kb, given: kb.listing(**given),
    "remove": lambda kb, given: kb.remove(**given),
    "documents": lambda kb, given: kb.documents(),
    "documents_page": lambda kb, given: kb.documents_page(**given),
    "document": lambda kb, given: kb.document(**given),
    "record": lambda kb, given: kb.record(**given),
    "chunks": lambda kb, given: kb.chunks(**given),
    "policy": lambda kb, given: kb.policy(),
    "set_policy": lambda kb, given: kb.set_policy(**given),
    "status": lambda kb, given: kb.status(),
    "sections": lambda kb, given: kb.sections(**given),
    "search": _search,
    "quote": _quote,
    "check_quote": lambda kb, given: kb.check_quote(**given),
    "verify": lambda kb, given: kb.verify(**given),
}


def build_holder_app(knowledge: KnowledgeApi, token: str, requests: HeldRequests
                     ) -> web.Application:
    """The holder's API over `knowledge` (whoever opened it closes it), answering only
    requests that bear `token`; `requests` counts those running."""
    app = web.Application(middlewares=[_counted, _errors, _authentication],
                          client_max_size=64 * 1024 * 1024)
    app[KNOWLEDGE] = knowledge
    app[TOKEN] = token
    app[REQUESTS] = requests
    app.router.add_post(OPERATIONS_PATH + "ingest_many", _ingest_many)
    app.router.add_post(OPERATIONS_PATH + "crawl", _crawl)
    app.router.add_post(OPERATIONS_PATH + "{operation}", _operation)
    return app


@web.middleware
async def _counted(request: web.Request, handler: Handler) -> web.StreamResponse:
    requests = request.app[REQUESTS]
    requests.running += 1
    try:
        return await handler(request)
    finally:
        requests.running -= 1
        requests.ended = time.monotonic()


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except SheafError as exc:
        return problem(status_of(exc.kind), exc.kind.value, exc.message, public=False)
    except web.HTTPException as exc:  # no held operation: plain, so no client takes it
        if exc.status < 400:            # for an answer of this holder's
            raise
        return web.Response(status=exc.status, text=exc.reason)
    except Exception:  # a bug: logged in full, answered as a problem, holder stays up
        logger.exception("internal error on %s %s", request.method, request.path)
        return problem(500, "internal_error", "sheaf failed unexpectedly; see the log")


@web.middleware
async def _authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not bearer_matches(request.headers.get("Authorization", ""), request.app[TOKEN]):
        return problem(401, "unauthorized", "missing or wrong token")
    return await handler(request)


async def _asked(request: web.Request) -> tuple[KnowledgeApi, dict[str, Any]]:
    """The knowledge base on the request's space, and the operation's arguments."""
    try:
        body = json.loads(await request.read())
        space, arguments = body["space"], body["arguments"]
    except (ValueError, KeyError, TypeError):
        space = arguments = None
    if not isinstance(space, str) or not isinstance(arguments, dict):
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "a held operation's body is {\"space\": ..., \"arguments\": {...}}")
    return request.app[KNOWLEDGE].with_space(space), arguments


def _json(payload: Any) -> web.Response:
    return web.json_response(payload, dumps=lambda v: json.dumps(v, ensure_ascii=False))


async def _operation(request: web.Request) -> web.Response:
    name = request.match_info["operation"]
    operation = _OPERATIONS.get(name)
    if operation is None:
        return problem(404, "unknown_operation", f"the holder has no operation {name!r}",
                       public=False)
    kb, arguments = await _asked(request)
    return _json(to_plain(await operation(kb, arguments)))


async def _ingest_many(request: web.Request) -> web.StreamResponse:
    """A batch for another process, in JSON lines as each source finishes; the holder
    does not stop while one runs."""
    kb, arguments = await _asked(request)
    listing = from_plain(DirectoryListing, arguments.pop("listing"))
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)

    async def line(value: Any) -> None:
        await response.write(json.dumps(value, ensure_ascii=False).encode() + b"\n")

    try:
        async with aclosing(kb.ingest_many(listing, **arguments)) as events:  # type: ignore[type-var]
            async for event in events:
                await line({"progress": to_plain(event)})
    except SheafError as exc:
        await line({"failure": {"kind": exc.kind.value, "detail": exc.message}})
    await response.write_eof()
    return response


async def _crawl(request: web.Request) -> web.StreamResponse:
    """A crawl for another process, in JSON lines: each page as it is visited, then the
    summary."""
    from ...application.crawling.site_crawl import CrawlSummary

    kb, arguments = await _asked(request)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)

    async def line(value: Any) -> None:
        await response.write(json.dumps(value, ensure_ascii=False).encode() + b"\n")

    try:
        async with aclosing(kb.crawl(**arguments)) as events:  # type: ignore[type-var]
            async for event in events:
                key = "summary" if isinstance(event, CrawlSummary) else "progress"
                await line({key: to_plain(event)})
    except SheafError as exc:
        await line({"failure": {"kind": exc.kind.value, "detail": exc.message}})
    await response.write_eof()
    return response
