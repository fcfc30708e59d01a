"""Tools for LLM agents: JSON Schema definitions in the OpenAI and Anthropic formats, the
argument checking done before anything runs, and the dispatch to `sheaf.Knowledge`.

The definitions are plain JSON Schema in one table so that any tool protocol (function
calling, MCP) serves the same tools; answers are `serialisation`'s records.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.url_normalisation import is_url
from ...domain.quotes.verification_terms import VERIFIED_MEANS
from ...domain.search.search_request import Expansion
from . import serialisation

if TYPE_CHECKING:
    from .knowledge_api import KnowledgeApi

TOOLS: dict[str, dict[str, Any]] = {
    "ingest_url": {
        "description": "Fetch a URL (web page or PDF) into the knowledge base. Returns the "
                       "document id and title; call it before searching a new source.",
        "parameters": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "http(s) URL to ingest"},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "key/value labels stored with the document"},
                "render": {"type": "string", "enum": ["auto", "always", "never"],
                           "description": "render the page in a headless browser: auto "
                                          "(default) when its markup is thin and built "
                                          "by script"},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
    },
    "crawl_site": {
        "description": "Crawl a website from a start URL into the knowledge base, each "
                       "page its own document: pages come from the site's llms.txt, "
                       "sitemaps and links, under the start page's folder (or its whole "
                       "host), robots.txt honoured. Returns each page's outcome (new, "
                       "changed, unchanged, duplicate, failed, skipped, removed) and "
                       "counts; a repeated crawl reports what changed.",
        "parameters": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "the http(s) start page"},
                "max_pages": {"type": "integer", "minimum": 1, "maximum": 1000,
                              "description": "pages fetched at most (default 100)"},
                "max_depth": {"type": "integer", "minimum": 0, "maximum": 20,
                              "description": "links followed from the start (default 5)"},
                "scope": {"type": "string", "enum": ["prefix", "host"],
                          "description": "prefix (default): under the start page's "
                                         "folder; host: the whole host"},
                "include": {"type": "array", "items": {"type": "string"},
                            "description": "only URLs matching one of these shell "
                                           "patterns"},
                "exclude": {"type": "array", "items": {"type": "string"},
                            "description": "leave out URLs matching these shell patterns"},
                "render": {"type": "string", "enum": ["auto", "always", "never"]},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
    },
    "search_knowledge": {
        "description": "Search the knowledge base. Returns passages with citations "
                       "(title, URL, section, pages, character offsets); quote them with "
                       "get_exact_quote before stating what a source says.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "k": {"type": "integer", "minimum": 1, "maximum": 50,
                      "description": "how many passages (default 5)"},
                "document_id": {"type": "string", "description": "only this document"},
                "section": {"type": "string",
                            "description": "only this section label, e.g. methods"},
                "mode": {"type": "string", "enum": ["auto", "hybrid", "bm25", "vector"]},
                "source": {"type": "string",
                           "description": "only text extracted from this kind of content: "
                                          "html, pdf, raw, docx, ..."},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "only documents with these labels"},
                "group_by_document": {"type": "boolean",
                                      "description": "at most one passage per document"},
                "expand": {"type": "string", "enum": [e.value for e in Expansion],
                           "description": "widen each passage: its neighbouring snippets, "
                                          "its whole section, or neighbouring sections"},
                "window": {"type": "integer", "minimum": 1, "maximum": 5,
                           "description": "neighbours each side for snippet-window and "
                                          "section-neighbourhood"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    "get_exact_quote": {
        "description": "Check a passage against a document and return its exact words with "
                       "their offsets and status verified, or an error (quote_not_found) "
                       "carrying the verification record: the closest passage and what "
                       "differs, word by word. Give one of: text; a section label (with "
                       "optional first_sentences or last_sentences); a sentence or "
                       "paragraph number; a line range. With text, " + VERIFIED_MEANS +
                       " mode locate finds a paraphrase or damaged text instead: its "
                       "answer is located, never verified, and lists the differences.",
        "parameters": {
            "type": "object",
            "properties": {
                "document_id": {"type": "string"},
                "text": {"type": "string", "description": "the passage to find"},
                "find_all": {"type": "boolean",
                             "description": "every occurrence of text, not the first"},
                "mode": {"type": "string", "enum": ["verify", "locate"],
                         "description": "verify (default): confirm the document says "
                                        "text; locate: find where it says something "
                                        "like it (never verified)"},
                "section": {"type": "string", "description": "a section label or heading"},
                "first_sentences": {"type": "integer", "minimum": 1, "maximum": 50},
                "last_sentences": {"type": "integer", "minimum": 1, "maximum": 50},
                "sentence": {"type": "integer", "minimum": 1,
                             "description": "the Nth sentence of the document"},
                "paragraph": {"type": "integer", "minimum": 1,
                              "description": "the Nth paragraph of the document"},
                "lines": {"type": "array", "items": {"type": "integer", "minimum": 1},
                          "minItems": 2, "maxItems": 2,
                          "description": "first and last line of the Markdown, inclusive"},
            },
            "required": ["document_id"],
            "additionalProperties": False,
        },
    },
    "verify_claim": {
        "description": "Check whether the knowledge base says a claim. Each sentence of "
                       "the claim is searched for and answered verified (with the passage "
                       "and its citation: document, URL or path, section, pages, offsets), "
                       "not_verified (the closest passage and what differs) or not_found "
                       "(no document says anything close). An answer that is not verified "
                       "is an error (claim_not_verified) carrying the record. "
                       + VERIFIED_MEANS,
        "parameters": {
            "type": "object",
            "properties": {
                "claim": {"type": "string", "description": "one or more sentences"},
                "document_id": {"type": "string", "description": "only this document"},
                "k": {"type": "integer", "minimum": 1, "maximum": 50,
                      "description": "passages searched per sentence (default 5)"},
            },
            "required": ["claim"],
            "additionalProperties": False,
        },
    },
    "list_documents": {
        "description": "List the documents in the knowledge base with their ids and titles.",
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 500},
            },
            "additionalProperties": False,
        },
    },
    "get_document": {
        "description": "One document's record: title, URL, metadata, versions and the "
                       "extraction's diagnostics.",
        "parameters": {
            "type": "object",
            "properties": {"document_id": {"type": "string",
                                           "description": "id, URL or source id"}},
            "required": ["document_id"],
            "additionalProperties": False,
        },
    },
    "get_sections": {
        "description": "A document's sections: labels (abstract, methods, results, ...), "
                       "headings and character spans.",
        "parameters": {
            "type": "object",
            "properties": {"document_id": {"type": "string"}},
            "required": ["document_id"],
            "additionalProperties": False,
        },
    },
}


def tool_definitions(style: str = "openai") -> list[dict[str, Any]]:
    """Every tool, as OpenAI's `tools` entries or Anthropic's."""
    if style == "openai":
        return [{"type": "function", "function": {"name": name, **tool}}
                for name, tool in TOOLS.items()]
    if style == "anthropic":
        return [{"name": name, "description": tool["description"],
                 "input_schema": tool["parameters"]} for name, tool in TOOLS.items()]
    raise ValueError(f"unknown tool style {style!r}: openai or anthropic")


def check_arguments(name: str, arguments: object) -> dict[str, Any]:
    """The arguments, checked against the tool's schema; `invalid_query` naming the first
    problem otherwise (models make mistakes; the message lets them correct themselves)."""
    tool = TOOLS.get(name)
    if tool is None:
        raise SheafError(ErrorKind.INVALID_QUERY,
                         f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
    return checked_against(name, tool["parameters"], arguments)


def checked_against(name: str, schema: dict[str, Any], arguments: object) -> dict[str, Any]:
    """`arguments` if they meet `schema` (the subset of JSON Schema the tools use), or
    `invalid_query` naming the first problem. The MCP server checks its own tools with it
    too, so every interface words a bad argument the same way."""
    problem = _problem(arguments, schema, "arguments")
    if problem:
        raise SheafError(ErrorKind.INVALID_QUERY, f"{name}: {problem}")
    assert isinstance(arguments, dict)
    return arguments


_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,),
                                       "object": (dict,), "boolean": (bool,),
                                       "array": (list,)}


def _problem(value: object, schema: dict[str, Any], where: str) -> str | None:
    """The first way `value` breaks `schema` (the subset of JSON Schema used above)."""
    kind = schema.get("type")
    wrong_type = kind is not None and (
        (isinstance(value, bool) and kind == "integer") or not isinstance(value, _TYPES[kind]))
    if wrong_type:
        return f"{where} must be {'an' if str(kind)[0] in 'aeiou' else 'a'} {kind}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(map(str, schema['enum']))}"
    if isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} must be at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} must be at most {schema['maximum']}"
    if isinstance(value, str) and kind == "string" and not value.strip():
        return f"{where} is empty"
    if isinstance(value, list) and kind == "array":
        if len(value) < schema.get("minItems", 0):
            return f"{where} needs at least {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{where} takes at most {schema['maxItems']} items"
        for index, item in enumerate(value):
            found = _problem(item, schema.get("items", {}), f"{where}[{index}]")
            if found:
                return found
    if isinstance(value, dict) and kind == "object":
        for required in schema.get("required", []):
            if required not in value:
                return f"{where}.{required} is required"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                found = _problem(item, properties[key], f"{where}.{key}")
            elif extra is False:
                found = f"{where}.{key} is not a parameter"
            elif isinstance(extra, dict):
                found = _problem(item, extra, f"{where}.{key}")
            else:
                found = None
            if found:
                return found
    return None


async def run_tool(kb: KnowledgeApi, name: str, arguments: dict[str, Any] | str
                   ) -> dict[str, Any]:
    """Check and run one tool call on `kb`: the answer, or `{"error": {"kind",
    "message"}}` so that the model can correct itself."""
    try:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except json.JSONDecodeError as exc:
                raise SheafError(ErrorKind.INVALID_QUERY,
                                 f"arguments are not JSON: {exc}") from None
        return await run_checked_tool(kb, name, check_arguments(name, arguments))
    except SheafError as exc:
        return {"error": serialisation.error(exc)}


async def run_checked_tool(kb: KnowledgeApi, name: str, arguments: dict[str, Any]
                           ) -> dict[str, Any]:
    """Run a tool call whose arguments the caller has already checked against the tool's
    schema: the answer, or `{"error": {"kind", "message"}}`."""
    try:
        return await _dispatch(kb, name, arguments)
    except SheafError as exc:
        return {"error": serialisation.error(exc)}


async def _dispatch(kb: KnowledgeApi, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "ingest_url":
        url = str(arguments["url"])
        if not is_url(url):
            raise SheafError(ErrorKind.INVALID_URL, f"not an http(s) URL: {url}")
        result = await kb.ingest(url, metadata=arguments.get("metadata"),
                                 render=arguments.get("render", "auto"))
        if result.error_kind:
            raise SheafError(ErrorKind(result.error_kind), result.message or "failed")
        return serialisation.ingest_result(result)
    if name == "crawl_site":
        return await _crawl(kb, arguments)
    if name == "search_knowledge":
        found = await kb.search(str(arguments["query"]), int(arguments.get("k", 5)),
                                mode=str(arguments.get("mode", "auto")),
                                document=arguments.get("document_id"),
                                section=arguments.get("section"),
                                source=arguments.get("source"),
                                metadata=arguments.get("metadata"),
                                group_by_document=bool(
                                    arguments.get("group_by_document", False)),
                                expand=arguments.get("expand"),
                                window=int(arguments.get("window", 1)))
        return {"query": arguments["query"], "results": serialisation.hits(found)}
    if name == "get_exact_quote":
        if "text" in arguments and len([k for k in _QUOTE_BY if k in arguments]) == 1:
            return await _quote_text(kb, arguments)
        return {"quotes": [serialisation.quote(q) for q in await _quotes(kb, arguments)]}
    if name == "verify_claim":
        document = arguments.get("document_id")
        claim = await kb.verify(str(arguments["claim"]), document=document,
                                k=int(arguments.get("k", 5)))
        record = serialisation.claim_check(claim)
        if claim.status != "verified":
            return serialisation.not_verified(ErrorKind.CLAIM_NOT_VERIFIED.value,
                                              claim.message, record)
        return record
    if name == "list_documents":
        listed = (await kb.documents())[:int(arguments.get("limit", 100))]
        return {"documents": [serialisation.document_summary(d) for d in listed]}
    if name == "get_document":
        return serialisation.document_detail(await kb.record(str(arguments["document_id"])))
    document_id = str(arguments["document_id"])
    return {"document_id": document_id, "sections": [
        serialisation.section(s) for s in await kb.sections(document_id)]}


_QUOTE_BY = ("text", "section", "sentence", "paragraph", "lines")


async def _quote_text(kb: KnowledgeApi, arguments: dict[str, Any]) -> dict[str, Any]:
    """A quote by text: the verified (or located) passages, or the failure with the
    verification record."""
    check = await kb.check_quote(str(arguments["document_id"]), str(arguments["text"]),
                                 mode=str(arguments.get("mode", "verify")),
                                 find_all=bool(arguments.get("find_all", False)))
    if not check.quotes:
        return serialisation.not_verified(ErrorKind.QUOTE_NOT_FOUND.value, check.message,
                                          serialisation.quote_check(check))
    return {"status": check.status, "quotes": [serialisation.quote(q) for q in check.quotes]}


async def _quotes(kb: KnowledgeApi, arguments: dict[str, Any]) -> list[Any]:
    document = str(arguments["document_id"])
    given = [key for key in _QUOTE_BY if key in arguments]
    if len(given) != 1:
        named = ", ".join(given) or "none"
        raise SheafError(ErrorKind.INVALID_QUERY,
                         "get_exact_quote needs text or section, or a sentence, paragraph "
                         f"or lines: exactly one (got {named})")
    if "text" in arguments:
        return await kb.quote(document, str(arguments["text"]),
                              find_all=bool(arguments.get("find_all", False)))
    if "section" in arguments:
        return await kb.quote(document, section=str(arguments["section"]),
                              first=arguments.get("first_sentences"),
                              last=arguments.get("last_sentences"))
    if "lines" in arguments:
        first_line, last_line = arguments["lines"]
        return await kb.quote(document, lines=(int(first_line), int(last_line)))
    return await kb.quote(document, sentence=arguments.get("sentence"),
                          paragraph=arguments.get("paragraph"))


async def _crawl(kb: KnowledgeApi, arguments: dict[str, Any]) -> dict[str, Any]:
    """The crawl's pages (address, outcome, document, reason) and its summary."""
    from ...application.crawling.site_crawl import CrawlSummary

    start = str(arguments["url"])
    if not is_url(start):
        raise SheafError(ErrorKind.INVALID_URL, f"not an http(s) URL: {start}")
    options = {k: arguments[k] for k in ("max_pages", "max_depth", "scope", "include",
                                         "exclude", "render") if k in arguments}
    pages: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    async for event in kb.crawl(start, **options):
        if isinstance(event, CrawlSummary):
            summary = event.as_dict()
        else:
            visit = event.visit
            pages.append({k: v for k, v in {
                "url": visit.address, "outcome": visit.outcome.value,
                "document_id": visit.document_id, "reason": visit.reason}.items()
                if v is not None})
    return {**summary, "pages": pages}
