"""The HTTP API described as OpenAPI 3.1, served at /openapi.json."""

from __future__ import annotations

from typing import Any

from ...adapters.installation.package_version import sheaf_version
from ...domain.document.resolved_content import ContentSource
from ...domain.quotes.tolerances import TOLERANCES
from ...domain.quotes.verification_terms import VERIFIED_MEANS
from ...domain.search.search_request import MAX_RESULTS

RENDER = {"type": "string", "enum": ["auto", "always", "never"],
          "description": "render web pages in a headless Chromium: auto (default) when "
                         "the served markup is thin and built by script"}


def _problem(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/problem+json": {
                "schema": {"$ref": "#/components/schemas/Problem"}}}}


def _ok(description: str, schema: str | None = None) -> dict[str, Any]:
    body = {"$ref": f"#/components/schemas/{schema}"} if schema else {"type": "object"}
    return {"description": description, "content": {"application/json": {"schema": body}}}


SPACE = {"name": "space", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "the space (default: the server's)"}
DOCUMENT_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"},
               "description": "document id, URL, file path or caller source id"}
COMMON = {"400": _problem("bad request"), "401": _problem("missing or wrong token")}


def openapi_document() -> dict[str, Any]:
    document_routes = {"parameters": [DOCUMENT_ID, SPACE]}
    return {
        "openapi": "3.1.0",
        "info": {"title": "sheaf", "version": sheaf_version(),
                 "description": "Structured, searchable, quotable knowledge from URLs, "
                                "PDFs and pages. Errors are problem details whose `kind` "
                                "is sheaf's error kind."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Problem": {"type": "object", "required": ["status", "kind", "detail"],
                            "properties": {"type": {"type": "string"},
                                           "title": {"type": "string"},
                                           "status": {"type": "integer"},
                                           "detail": {"type": "string"},
                                           "kind": {"type": "string"}}},
                "IngestResult": {"type": "object", "required": ["source", "status"],
                                 "properties": {
                                     "source": {"type": "string"},
                                     "status": {"type": "string",
                                                "enum": ["new", "unchanged", "changed",
                                                         "duplicate"]},
                                     "document_id": {"type": "string"},
                                     "version_id": {"type": "string"},
                                     "title": {"type": "string"},
                                     "near_duplicate_of": {"type": "string"}}},
                "Document": {"type": "object", "required": ["id"],
                             "properties": {"id": {"type": "string"},
                                            "title": {"type": ["string", "null"]},
                                            "url": {"type": ["string", "null"]},
                                            "location": {"$ref": "#/components/schemas/"
                                                                 "Location"},
                                            "content": {"type": "string",
                                                        "description": "the kind of "
                                                        "content its text came from"},
                                            "version": {"type": "string"},
                                            "characters": {"type": "integer"},
                                            "diagnostics": {
                                                "type": "array",
                                                "items": {"type": "string"},
                                                "description": "GET /v1/documents/{id}"},
                                            "history": {
                                                "type": "array", "items": {"type": "object"},
                                                "description": "GET /v1/documents/{id}"}}},
                "Location": {
                    "type": "object",
                    "description": "Where the document came from, for citing it: its URL, "
                                   "or a local file's path and file: URI, or an uploaded "
                                   "file's original name. Also in search hits and quotes.",
                    "properties": {"url": {"type": "string"}, "path": {"type": "string"},
                                   "file_uri": {"type": "string"},
                                   "file_name": {"type": "string"}}},
            },
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/health": {"get": {
                "summary": "liveness, version and store", "security": [],
                "responses": {"200": _ok("the server is up")}}},
            "/openapi.json": {"get": {
                "summary": "this document", "security": [],
                "responses": {"200": _ok("the OpenAPI document")}}},
            "/metrics": {"get": {
                "summary": "Prometheus metrics (text format 0.0.4): requests by route and "
                           "status, latencies, uptime; any valid token",
                "responses": {"200": {"description": "the metrics", "content": {
                    "text/plain": {"schema": {"type": "string"}}}},
                    "401": _problem("missing or wrong token")}}},
            "/v1/documents": {
                "get": {"summary": "documents of a space, newest change first (a page "
                                   "with limit or cursor)",
                        "parameters": [SPACE, {
                            "name": "limit", "in": "query", "required": False,
                            "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
                            "description": "documents in a page (default 100 with a "
                                           "cursor; without both, the whole space)"}, {
                            "name": "cursor", "in": "query", "required": False,
                            "schema": {"type": "string"},
                            "description": "the next_cursor of the page before"}],
                        "responses": {"200": _ok("the documents and next_cursor (null "
                                                 "on the last page)"), **COMMON}},
                "post": {
                    "summary": "ingest a URL or an uploaded file",
                    "parameters": [SPACE],
                    "requestBody": {"required": True, "content": {
                        "application/json": {"schema": {
                            "type": "object", "required": ["url"],
                            "properties": {"url": {"type": "string", "format": "uri"},
                                           "metadata": {"type": "object",
                                                        "additionalProperties": {
                                                            "type": "string"}},
                                           "source_id": {"type": "string"},
                                           "force": {"type": "boolean"},
                                           "render": RENDER}}},
                        "multipart/form-data": {"schema": {
                            "type": "object", "required": ["file"],
                            "properties": {"file": {"type": "string",
                                                    "contentMediaType":
                                                        "application/octet-stream"},
                                           "metadata": {"type": "string",
                                                        "description": "a JSON object"},
                                           "source_id": {"type": "string"}}}}}},
                    "responses": {
                        "201": _ok("a new document", "IngestResult"),
                        "200": _ok("unchanged, changed (a new version) or a duplicate",
                                   "IngestResult"),
                        **COMMON,
                        "403": _problem("ingestion disabled or blocked address"),
                        "413": _problem("too large"),
                        "415": _problem("unsupported content"),
                        "422": _problem("content that could not be extracted"),
                        "429": _problem("the ingest queue is full"),
                        "502": _problem("the upstream server failed"),
                        "504": _problem("the upstream server timed out")}}},
            "/v1/documents/{id}": {
                **document_routes,
                "get": {"summary": "one document",
                        "responses": {"200": _ok("the document", "Document"), **COMMON,
                                      "404": _problem("no such document")}},
                "delete": {"summary": "remove a document with its versions",
                           "responses": {"200": _ok("removed"), **COMMON,
                                         "404": _problem("no such document")}}},
            "/v1/documents/{id}/markdown": {
                **document_routes,
                "get": {"summary": "the canonical Markdown",
                        "responses": {"200": {"description": "Markdown",
                                              "content": {"text/markdown": {
                                                  "schema": {"type": "string"}}}},
                                      **COMMON, "404": _problem("no such document")}}},
            "/v1/documents/{id}/sections": {
                **document_routes,
                "get": {"summary": "labelled sections with spans",
                        "responses": {"200": _ok("the sections"), **COMMON,
                                      "404": _problem("no such document")}}},
            "/v1/documents/{id}/chunks": {
                **document_routes,
                "get": {"summary": "section chunks and snippets",
                        "parameters": [{"name": "level", "in": "query",
                                        "schema": {"type": "string",
                                                   "enum": ["section", "snippet"]}}],
                        "responses": {"200": _ok("the chunks"), **COMMON,
                                      "404": _problem("no such document")}}},
            "/v1/search": {"get": {
                "summary": "ranked snippets with citations",
                "parameters": [
                    {"name": "q", "in": "query", "required": True,
                     "schema": {"type": "string"}},
                    SPACE,
                    {"name": "k", "in": "query", "schema": {
                        "type": "integer", "minimum": 1, "maximum": MAX_RESULTS}},
                    {"name": "mode", "in": "query", "schema": {
                        "type": "string", "enum": ["auto", "hybrid", "bm25", "vector"]}},
                    {"name": "section", "in": "query", "schema": {"type": "string"}},
                    {"name": "doc", "in": "query", "schema": {"type": "string"}},
                    {"name": "source", "in": "query", "schema": {
                        "type": "string", "enum": [k.value for k in ContentSource]}},
                    {"name": "meta", "in": "query", "schema": {"type": "string"},
                     "description": "key=value"},
                    {"name": "group", "in": "query", "schema": {"type": "boolean"}},
                    {"name": "expand", "in": "query", "schema": {
                        "type": "string", "enum": ["snippet-window", "parent-section",
                                                   "section-neighbourhood"]}},
                    {"name": "window", "in": "query", "schema": {"type": "integer"}}],
                "responses": {"200": _ok("the hits"), **COMMON,
                              "404": _problem("a --doc that does not exist"),
                              "409": _problem("the space was embedded by another model")}}},
            "/v1/crawls": {"post": {
                "summary": "crawl a site into the space, each page a document",
                "description": "Pages come from the start page, the site's llms.txt and "
                               "sitemaps, and links, within the scope; robots.txt and "
                               "robots meta tags are honoured. The answer is JSON lines "
                               "as the crawl goes: {\"page\": ...} per page visited, then "
                               "{\"summary\": ...} with counts and the removed pages "
                               "({\"problem\": ...} if it stopped on an error). A crawl "
                               "of the same start page resumes where an interrupted one "
                               "stopped and reports what changed since the last.",
                "parameters": [SPACE],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["url"], "properties": {
                        "url": {"type": "string", "format": "uri"},
                        "scope": {"type": "string", "enum": ["prefix", "host"]},
                        "include": {"type": "array", "items": {"type": "string"}},
                        "exclude": {"type": "array", "items": {"type": "string"}},
                        "max_pages": {"type": "integer", "minimum": 1},
                        "max_depth": {"type": "integer", "minimum": 0},
                        "delay": {"type": "number", "minimum": 0},
                        "discover": {"type": "boolean"},
                        "restart": {"type": "boolean"},
                        "render": RENDER,
                        "metadata": {"type": "object",
                                     "additionalProperties": {"type": "string"}}}}}}},
                "responses": {"200": {"description": "the crawl, as JSON lines",
                                      "content": {"application/x-ndjson": {
                                          "schema": {"type": "object"}}}},
                              **COMMON,
                              "403": _problem("ingestion disabled or blocked address")}}},
            "/v1/quote": {"post": {
                "summary": "a document's exact words with offsets",
                "description": "By text: 200 with status verified and the passages, or "
                               "404 quote_not_found whose `verification` member is the "
                               "record (status not_verified or not_found, the closest "
                               "passage and its classified differences). "
                               + VERIFIED_MEANS + " mode locate answers located, never "
                               "verified, with the differences.",
                "parameters": [SPACE],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["document_id"],
                               "properties": {
                                   "document_id": {"type": "string"},
                                   "text": {"type": "string"},
                                   "mode": {"type": "string",
                                            "enum": ["verify", "locate"]},
                                   "all": {"type": "boolean"},
                                   "sentence": {"type": "integer"},
                                   "paragraph": {"type": "integer"},
                                   "lines": {"type": "array", "items": {"type": "integer"},
                                             "minItems": 2, "maxItems": 2},
                                   "section": {"type": "string"},
                                   "first": {"type": "integer"},
                                   "last": {"type": "integer"}}}}}},
                "responses": {"200": _ok("the quotes"), **COMMON,
                              "404": _problem("no such document, or the text is not "
                                              "verified in it (see `verification`)"),
                              "422": _problem("a position out of range")}}},
            "/v1/verify": {"post": {
                "summary": "whether the stored documents say a claim",
                "description": "Each sentence of the claim is searched for and answered "
                               "verified (the passages with full citations), not_verified "
                               "(the closest passage and what differs) or not_found. 200 "
                               "when every sentence is verified; otherwise 404 "
                               "claim_not_verified whose `verification` member is the "
                               "record. " + VERIFIED_MEANS,
                "parameters": [SPACE],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["claim"],
                               "properties": {
                                   "claim": {"type": "string"},
                                   "document_id": {"type": "string"},
                                   "k": {"type": "integer", "minimum": 1}}}}}},
                "responses": {"200": _ok("the claim check, verified"), **COMMON,
                              "404": _problem("not verified (see `verification`), or no "
                                              "such document")}}},
        },
        "x-sheaf-tolerated-differences": [t.value for t in TOLERANCES],
    }
