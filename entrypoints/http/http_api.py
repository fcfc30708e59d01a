"""The HTTP API (aiohttp.web): documents, search, quotes, health, and its OpenAPI document.

The server owns its DuckDB store: one process writes (the store serialises writes as
DuckDB requires, reads run concurrently on their own cursors). Ingests beyond
`max_pending` at once are refused with 429 rather than queued without bound. Uploads
stream to disk under the size cap, counted while reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
from aiohttp import BodyPartReader, web
from aiohttp.helpers import parse_mimetype

from ...adapters.fetching.http_settings import DEFAULT_MAX_BYTES
from ...adapters.files.owner_only import owner_only_folders
from ...adapters.installation.package_version import sheaf_version
from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.url_normalisation import is_url
from ...domain.rendering.render_need import RENDER_MODES
from ...domain.search.search_request import (
    MAX_RESULTS,
    Expansion,
    SearchMode,
    parse_metadata_filter,
)
from ...domain.store.ingestion import IngestResult, IngestStatus
from ...domain.store.knowledge_records import StoreStatus
from ...domain.values.json_nesting import parse_strict_json
from ..api import serialisation
from ..api.knowledge_api import KnowledgeApi
from .bearer_token import bearer_matches
from .browser_requests import AllowedHosts, json_content_type, refusal_of
from .document_paging import documents_payload
from .openapi import openapi_document
from .problem_details import problem, status_of
from .prometheus_metrics import MetricsRegistry, http_metrics, metrics_handler, process_metrics
from .token_scopes import TokenScope, is_write, scope_of

logger = logging.getLogger("sheaf.api")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KNOWLEDGE = web.AppKey("knowledge", KnowledgeApi)
SETTINGS = web.AppKey("settings", "ApiSettings")
SEARCHES = web.AppKey("searches", asyncio.Semaphore)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@attrs.define
class ApiSettings:
    """How the server behaves; `token` None means no authentication (loopback use);
    `allowed_hosts` the names it answers to (`browser_requests`)."""

    space: str = "default"
    token: str | None = None
    scopes: tuple[TokenScope, ...] = ()
    """Tokens that reach one space (`token_scopes`), beside the unscoped `token`."""
    allowed_hosts: AllowedHosts = attrs.field(factory=lambda: AllowedHosts.serving(
        "127.0.0.1"))
    max_upload_bytes: int = DEFAULT_MAX_BYTES
    max_pending: int = 8
    uploads: Path = attrs.field(factory=lambda: Path(tempfile.gettempdir()) / "sheaf-uploads")
    pending: int = 0
    store_status: StoreStatus | None = None
    """The store as health names it, read on the first probe."""
    max_searches: int = attrs.field(factory=lambda: max(2, os.cpu_count() or 2))
    """Searches answered at once; more wait their turn. The loop runs part of each, so
    eight at once kept health waiting behind them (ADR-0037)."""


class _Refusal(Exception):
    def __init__(self, status: int, kind: str, detail: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail, self.headers = status, kind, detail, headers


def build_app(knowledge: KnowledgeApi, settings: ApiSettings) -> web.Application:
    """The application over `knowledge` (whoever opened it closes it); `?space=` picks
    another space of the same store."""
    registry = MetricsRegistry()
    process_metrics(registry, time.time())
    app = web.Application(middlewares=[http_metrics(registry), _errors, _browsers,
                                       _authentication],
                          client_max_size=settings.max_upload_bytes + 1024 * 1024)
    app[KNOWLEDGE] = knowledge
    app[SETTINGS] = settings
    app[SEARCHES] = asyncio.Semaphore(settings.max_searches)
    app.router.add_get("/metrics", metrics_handler(registry))
    app.router.add_get("/v1/health", health)
    app.router.add_get("/openapi.json", openapi)
    app.router.add_post("/v1/documents", ingest)
    app.router.add_get("/v1/documents", list_documents)
    app.router.add_get("/v1/documents/{id}", get_document)
    app.router.add_get("/v1/documents/{id}/markdown", get_markdown)
    app.router.add_get("/v1/documents/{id}/sections", get_sections)
    app.router.add_get("/v1/documents/{id}/chunks", get_chunks)
    app.router.add_delete("/v1/documents/{id}", delete_document)
    app.router.add_get("/v1/search", search)
    app.router.add_post("/v1/quote", quote)
    app.router.add_post("/v1/verify", verify)
    app.router.add_post("/v1/crawls", crawl)
    return app


async def verify(request: web.Request) -> web.Response:
    payload = await _json_body(request, "{\"claim\": ...}")
    if not isinstance(payload, dict) or not isinstance(payload.get("claim"), str):
        raise _bad("the JSON body needs a \"claim\" string")
    document = payload.get("document_id")
    if document is not None and not isinstance(document, str):
        raise _bad("document_id must be a string")
    k = _count(payload, "k") or 5
    check = await _knowledge(request).verify(payload["claim"], document=document, k=k)
    record = serialisation.claim_check(check)
    if check.status != "verified":
        return problem(404, ErrorKind.CLAIM_NOT_VERIFIED.value, check.message,
                       members={"verification": record})
    return _json(record)


# -- middleware ------------------------------------------------------------------------
@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except SheafError as exc:
        return problem(status_of(exc.kind), exc.kind.value, exc.message)
    except _Refusal as refusal:
        return problem(refusal.status, refusal.kind, refusal.detail, headers=refusal.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return problem(exc.status, "http_error", exc.reason, headers={
            k: v for k, v in exc.headers.items() if k.lower() == "allow"})
    except Exception:  # a bug: logged in full, answered as a problem, server stays up
        logger.exception("internal error on %s %s", request.method, request.path)
        return problem(500, "internal_error", "sheaf failed unexpectedly; see the log")


@web.middleware
async def _browsers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Requests a web page made on its own behalf refused before anything else: a
    rebinding page's `Host` (421), another site's `Origin` (403)."""
    refused = refusal_of(request.app[SETTINGS].allowed_hosts, method=request.method,
                         host=request.headers.get("Host"),
                         origin=request.headers.get("Origin"),
                         fetch_site=request.headers.get("Sec-Fetch-Site"))
    if refused is not None:
        raise _Refusal(refused.status, refused.kind, refused.detail)
    return await handler(request)


@web.middleware
async def _authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    if not (settings.token or settings.scopes) or \
            request.path in ("/v1/health", "/openapi.json"):
        return await handler(request)
    scope = scope_of(request.headers.get("Authorization", ""), settings.token,
                     settings.scopes)
    if scope is None:
        raise _Refusal(401, "unauthorized",
                       "missing or wrong token: send 'Authorization: Bearer <token>'",
                       {"WWW-Authenticate": 'Bearer realm="sheaf"'})
    if request.path == "/metrics":  # operational counts of no space: any valid token
        return await handler(request)
    space = request.query.get("space") or settings.space
    writing = is_write(request.method, request.path)
    if not scope.allows(space, writing):
        raise _Refusal(403, "forbidden", f"this token may {scope.describe()}, not "
                       f"{'write' if writing else 'read'} space {space!r}")
    return await handler(request)


# -- helpers -----------------------------------------------------------------------------
def _knowledge(request: web.Request) -> KnowledgeApi:
    """The knowledge base on the request's space."""
    space = request.query.get("space") or request.app[SETTINGS].space
    return request.app[KNOWLEDGE].with_space(space)


def _json(payload: Any, status: int = 200) -> web.Response:
    return web.json_response(payload, status=status,
                             dumps=lambda v: json.dumps(v, ensure_ascii=False))


async def _json_in_thread(payload: Callable[[], Any]) -> web.Response:
    """`_json(payload())`, built and encoded in a worker thread: a page of hits is tens
    of kilobytes, the largest step a search took on the loop."""
    def encoded() -> bytes:
        return json.dumps(payload(), ensure_ascii=False).encode()

    return web.Response(body=await anyio.to_thread.run_sync(encoded),
                        content_type="application/json", charset="utf-8")


def _bad(detail: str) -> _Refusal:
    return _Refusal(400, "invalid_request", detail)


def _json_value(text: str, what: str) -> Any:
    try:
        return parse_strict_json(text, what)
    except ValueError as exc:
        raise _bad(f"{what} is not JSON: {exc}") from None


async def _json_body(request: web.Request, hint: str) -> Any:
    if not json_content_type(request.headers.get("Content-Type")):
        # What a page can post anywhere without asking (text/plain, a form) is not read.
        raise _Refusal(415, "unsupported_media_type",
                       f"the body must be sent as Content-Type: application/json {hint}")
    try:
        text = (await request.read()).decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(f"the body must be UTF-8 JSON {hint}") from None
    return _json_value(text, "the body")


def _count(payload: dict[str, Any], name: str) -> int | None:
    """An optional positive whole number from a JSON body; booleans and floats refused."""
    value = payload.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _bad(f"{name} must be a whole number of at least 1, not {json.dumps(value)}")
    return value


def _int(request: web.Request, name: str, default: int, *, least: int = 1,
         most: int | None = None) -> int:
    value = request.query.get(name)
    if value is None:
        return default
    try:
        number = int(value) if len(value) <= 20 else None
    except ValueError:
        number = None
    if number is None or number < least or (most is not None and number > most):
        bounds = f"between {least} and {most}" if most is not None else f"at least {least}"
        raise _bad(f"{name} must be a whole number {bounds}, not {value[:40]!r}")
    return number


# -- handlers ----------------------------------------------------------------------------
async def health(request: web.Request) -> web.Response:
    """Liveness: this server answers. What it names (the store, its schema) does not
    change while it serves, so it is read from the store once: a probe never queues
    behind the searches and ingests using the store's connections."""
    status = request.app[SETTINGS].store_status
    if status is None:
        status = request.app[SETTINGS].store_status = await request.app[KNOWLEDGE].status()
    token = request.app[SETTINGS].token  # health needs none; the store's path does
    trusted = bool(token) and bearer_matches(request.headers.get("Authorization", ""),
                                             token or "")
    return _json(serialisation.health(status, sheaf_version(), full_location=trusted))


async def openapi(request: web.Request) -> web.Response:
    return _json(openapi_document())


async def ingest(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    if settings.pending >= settings.max_pending:
        raise _Refusal(429, "queue_full",
                       f"{settings.pending} ingests are running; try again shortly",
                       {"Retry-After": "2"})
    settings.pending += 1
    upload: Path | None = None
    try:
        if request.content_type == "multipart/form-data":
            source, options = await _receive_upload(request)
            upload = Path(source)
        else:
            source, options = await _url_request(request)
        result = await _knowledge(request).ingest(source, **options)
        if upload is not None:
            result = _as_uploaded(result, source, options["upload_name"])
    finally:
        settings.pending -= 1
        if upload is not None:  # the store keeps its own copy of the bytes
            _discard_upload(upload, settings.uploads)
    return _ingested(result)


def _as_uploaded(result: IngestResult, spooled: str, name: str) -> IngestResult:
    """The result as the client sent it: the upload's own file name where the server's
    spool path stood (README: details never name server paths)."""
    message = result.message.replace(spooled, name) if result.message else result.message
    return attrs.evolve(result, source=name, message=message)


def _discard_upload(upload: Path, uploads: Path) -> None:
    upload.unlink(missing_ok=True)
    if upload.parent != uploads and uploads in upload.parents:
        with contextlib.suppress(OSError):  # another upload of the same bytes is arriving
            upload.parent.rmdir()


def _ingested(result: IngestResult) -> web.Response:
    if result.status is IngestStatus.FAILED:
        kind = ErrorKind(result.error_kind) if result.error_kind else ErrorKind.HTTP_ERROR
        raise SheafError(kind, result.message or "ingest failed")
    return _json(serialisation.ingest_result(result),
                 201 if result.status is IngestStatus.NEW else 200)


def _options(payload: dict[str, Any]) -> dict[str, Any]:
    metadata = payload.get("metadata") or {}
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise _bad("metadata must be an object of strings")
    source_id = payload.get("source_id")
    if source_id is not None and not isinstance(source_id, str):
        raise _bad("source_id must be a string")
    render = payload.get("render", "auto")
    if render not in RENDER_MODES:
        raise _bad(f"render must be one of {', '.join(RENDER_MODES)}")
    return {"metadata": metadata, "source_id": source_id,
            "force": bool(payload.get("force", False)), "render": render}


async def _url_request(request: web.Request) -> tuple[str, dict[str, Any]]:
    payload = await _json_body(request, "{\"url\": ...} or a multipart upload")
    if not isinstance(payload, dict) or not isinstance(payload.get("url"), str):
        raise _bad("the JSON body needs a \"url\" string")
    url = payload["url"]
    if not is_url(url):
        raise SheafError(ErrorKind.INVALID_URL, f"only http(s) URLs are fetched: {url!r}")
    return url, _options(payload)


async def _receive_upload(request: web.Request) -> tuple[str, dict[str, Any]]:
    """The `file` part streamed to disk, counted against the cap as it arrives; stored
    by content hash and name, so the same upload twice is `unchanged`."""
    settings = request.app[SETTINGS]
    if not parse_mimetype(request.headers.get("Content-Type", "")).parameters.get("boundary"):
        raise _bad("the multipart body has no boundary in its Content-Type")
    try:
        reader = await request.multipart()
    except (KeyError, ValueError, AssertionError):
        raise _bad("the multipart body's Content-Type is malformed") from None
    payload: dict[str, Any] = {}
    stored: Path | None = None
    upload_name = "upload"
    try:
        while (part := await _next_part(reader)) is not None:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "file":
                if stored is not None:
                    raise _bad("the multipart body has more than one \"file\" part")
                # The name as the client gave it (its folders left out): what citations
                # show. Clients percent-encode what the header cannot carry (aiohttp, curl).
                given = urllib.parse.unquote(part.filename or "")
                upload_name = given.replace("\\", "/").rsplit("/", 1)[-1].strip() or "upload"
                stored = await _spool(part, settings)
            elif part.name == "metadata":
                payload["metadata"] = _json_value(await part.text(), "the metadata part")
            elif part.name == "source_id":
                payload["source_id"] = await part.text()
        if stored is None:
            raise _bad("the multipart body needs a \"file\" part")
        return str(stored), _options(payload) | {"upload_name": upload_name}
    except BaseException:
        if stored is not None:
            _discard_upload(stored, settings.uploads)
        raise


async def _next_part(reader: Any) -> Any:
    try:
        return await reader.next()
    except (ValueError, AssertionError, KeyError):  # aiohttp's multipart parser refusing
        raise _bad("the multipart body is malformed") from None


async def _spool(part: BodyPartReader, settings: ApiSettings) -> Path:
    owner_only_folders(settings.uploads)
    name = _SAFE_NAME.sub("_", Path(part.filename or "upload").name).strip("._") or "upload"
    digest = hashlib.sha256()
    size = 0
    with tempfile.NamedTemporaryFile(dir=settings.uploads, delete=False) as spool:
        try:
            while chunk := await part.read_chunk(64 * 1024):
                size += len(chunk)
                if size > settings.max_upload_bytes:
                    raise SheafError(ErrorKind.TOO_LARGE,
                                     f"the upload is over the {settings.max_upload_bytes} "
                                     "byte limit")
                digest.update(chunk)
                spool.write(chunk)
        except BaseException:
            Path(spool.name).unlink(missing_ok=True)
            raise
    target = settings.uploads / digest.hexdigest()[:32] / name
    owner_only_folders(target.parent)
    Path(spool.name).replace(target)
    return target


async def list_documents(request: web.Request) -> web.Response:
    return _json(await documents_payload(_knowledge(request), request.query))


async def get_document(request: web.Request) -> web.Response:
    record = await _knowledge(request).record(request.match_info["id"])
    return _json(serialisation.document_detail(record))


async def get_markdown(request: web.Request) -> web.Response:
    document = await _knowledge(request).document(request.match_info["id"])
    return web.Response(text=document.markdown, content_type="text/markdown",
                        charset="utf-8")


async def get_sections(request: web.Request) -> web.Response:
    kb = _knowledge(request)
    record = await kb.record(request.match_info["id"])
    return _json({"document_id": record.id, "sections": [
        serialisation.section(s) for s in await kb.sections(record.id)]})


async def get_chunks(request: web.Request) -> web.Response:
    level = request.query.get("level")
    if level not in (None, "section", "snippet"):
        raise _bad("level is section or snippet")
    kb = _knowledge(request)
    record = await kb.record(request.match_info["id"])
    return _json({"document_id": record.id, "chunks": [
        serialisation.chunk(c) for c in await kb.chunks(record.id)
        if level is None or c.level == level]})


async def delete_document(request: web.Request) -> web.Response:
    removed = await _knowledge(request).remove(request.match_info["id"])
    return _json(serialisation.removal(removed))


async def search(request: web.Request) -> web.Response:
    query = request.query.get("q", "")
    if not query.strip():
        raise _bad("q (the query) is required")
    try:
        mode = SearchMode(request.query.get("mode", "auto"))
        expand_value = request.query.get("expand")
        expand = Expansion(expand_value) if expand_value else None
    except ValueError as exc:
        raise _bad(str(exc)) from None
    k, window = _int(request, "k", 10, most=MAX_RESULTS), _int(request, "window", 1, least=0)
    async with request.app[SEARCHES]:
        found = await _knowledge(request).search(
            query, k, mode=mode, document=request.query.getall("doc", []),
            section=request.query.getall("section", []),
            source=request.query.getall("source", []),
            metadata=parse_metadata_filter(request.query.getall("meta", [])),
            group_by_document=request.query.get("group", "").lower() in ("1", "true",
                                                                         "yes"),
            expand=expand, window=window)
    return await _json_in_thread(lambda: {"query": query,
                                          "results": serialisation.hits(found)})


async def quote(request: web.Request) -> web.Response:
    payload = await _json_body(request, "{\"document_id\": ..., \"text\": ...}")
    if not isinstance(payload, dict) or not isinstance(payload.get("document_id"), str):
        raise _bad("the JSON body needs a \"document_id\" string")
    kb, document = _knowledge(request), payload["document_id"]
    lines = payload.get("lines")
    if isinstance(payload.get("text"), str):
        mode = payload.get("mode", "verify")
        if mode not in ("verify", "locate"):
            raise _bad("mode must be verify or locate")
        check = await kb.check_quote(document, payload["text"], mode=mode,
                                     find_all=bool(payload.get("all")))
        if not check.quotes:
            return problem(404, ErrorKind.QUOTE_NOT_FOUND.value, check.message,
                           members={"verification": serialisation.quote_check(check)})
        return _json({"status": check.status,
                      "quotes": [serialisation.quote(q) for q in check.quotes]})
    elif isinstance(payload.get("section"), str):
        found = await kb.quote(document, section=payload["section"],
                               first=_count(payload, "first"), last=_count(payload, "last"))
    elif payload.get("sentence") is not None:
        found = await kb.quote(document, sentence=_count(payload, "sentence"))
    elif payload.get("paragraph") is not None:
        found = await kb.quote(document, paragraph=_count(payload, "paragraph"))
    elif lines is not None:
        if not isinstance(lines, list) or len(lines) != 2:
            raise _bad("lines must be a pair [first, last]")
        first = _count({"lines[0]": lines[0]}, "lines[0]") or 1
        last = _count({"lines[1]": lines[1]}, "lines[1]") or 1
        found = await kb.quote(document, lines=(first, last))
    else:
        raise _bad("give text, sentence, paragraph, lines [a, b] or section")
    return _json({"quotes": [serialisation.quote(q) for q in found]})


_CRAWL_FIELDS = {"scope": str, "max_pages": int, "max_depth": int, "delay": (int, float),
                 "discover": bool, "restart": bool}


async def crawl(request: web.Request) -> web.StreamResponse:
    """A site crawled from `url`, answered as JSON lines as it goes: `{"page": ...}` for
    each page visited, then `{"summary": ...}` (or `{"problem": ...}` if the crawl
    stopped on an error after it had begun)."""
    payload = await _json_body(request, "{\"url\": ...}")
    if not isinstance(payload, dict) or not isinstance(payload.get("url"), str):
        raise _bad("the JSON body needs a \"url\" string: the start page")
    start = payload["url"]
    if not is_url(start):
        raise SheafError(ErrorKind.INVALID_URL, f"only http(s) URLs are crawled: {start!r}")
    plan: dict[str, Any] = {}
    for name, kind in _CRAWL_FIELDS.items():
        if name in payload:
            value = payload[name]
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                raise _bad(f"{name} has the wrong type: {json.dumps(value)[:40]}")
            plan[name] = value
    for name in ("include", "exclude"):
        patterns = payload.get(name, [])
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise _bad(f"{name} must be a list of strings")
        plan[name] = patterns
    options = _options(payload)
    options.pop("source_id")
    async with contextlib.aclosing(_knowledge(request).crawl(  # type: ignore[type-var]
            start, **plan, **options)) as events:
        first = await anext(events)  # a crawl that cannot start is answered as a problem
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)

        async def line(value: Any) -> None:
            await response.write(json.dumps(value, ensure_ascii=False).encode() + b"\n")

        await line(serialisation.crawl_event(first))
        try:
            async for event in events:
                await line(serialisation.crawl_event(event))
        except SheafError as exc:
            await line({"problem": {"kind": exc.kind.value, "detail": exc.message}})
    await response.write_eof()
    return response
