"""The MCP server's tools: the LLM tools of `sheaf.Knowledge.tools()`, with the same names,
descriptions and JSON Schemas, plus the few only a server can offer (local files inside
its allowed folders, reading by range, removal when allowed).

The shared definitions are taken as they are; the server adds only a `cursor` to the
tools whose answers it pages, because paging is the server's answer to its output
budget, not part of what a tool means.
"""

from __future__ import annotations

import copy
from typing import Any

import attrs

from ..api.knowledge import Knowledge

# Tool name -> the list in its answer that the output budget pages through. A page is
# the same call run again, so only reads are paged; other answers too large for the
# budget keep the items that fit and say how many they left out.
PAGED_LISTS = {"search_knowledge": "results", "get_exact_quote": "quotes",
               "list_documents": "documents", "get_sections": "sections"}

CURSOR = {"type": "string",
          "description": "next_cursor from the previous answer to this same call: the rest "
                         "of what did not fit"}

SERVER_TOOLS: dict[str, dict[str, Any]] = {
    "ingest_file": {
        "description": "Ingest a local file, or every file of a folder, from the folders "
                       "this server was allowed to read (PDF, HTML, Markdown, text, "
                       "Office). Returns each document's id and title.",
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string",
                         "description": "a file or folder inside the allowed folders"},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "key/value labels stored with the documents"},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
    "read_document": {
        "description": "Read a document's Markdown: one section (by label or heading), "
                       "or a character range. Long text comes in pieces ending on a whole "
                       "sentence; the answer's next range reads on.",
        "input_schema": {
            "type": "object",
            "properties": {
                "document_id": {"type": "string"},
                "section": {"type": "string",
                            "description": "a section's index (from get_sections), label "
                                           "or heading"},
                "start": {"type": "integer", "minimum": 0,
                          "description": "first character (default 0)"},
                "end": {"type": "integer", "minimum": 0,
                        "description": "character after the last (default: the end)"},
            },
            "required": ["document_id"],
            "additionalProperties": False,
        },
    },
    "remove_document": {
        "description": "Remove a document (by id, URL or path) and everything only it used.",
        "input_schema": {
            "type": "object",
            "properties": {"document_id": {"type": "string"}},
            "required": ["document_id"],
            "additionalProperties": False,
        },
    },
}

# Every other tool only reads.
_WRITING = frozenset({"ingest_url", "crawl_site", "ingest_file", "remove_document"})


@attrs.frozen
class ToolSpec:
    """One tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    shared: bool
    """True for a tool of `Knowledge.tools()`, run by `Knowledge.call_tool`."""

    @property
    def read_only(self) -> bool:
        return self.name not in _WRITING


def server_tools(*, local_files: bool, removal: bool) -> dict[str, ToolSpec]:
    """The tools a server offers: every shared one; `ingest_file` when it has allowed
    folders; `remove_document` only when started to allow removal."""
    tools: dict[str, ToolSpec] = {}
    for definition in Knowledge.tools("anthropic"):
        tools[definition["name"]] = ToolSpec(
            definition["name"], definition["description"],
            _paged(definition["name"], definition["input_schema"]), shared=True)
    wanted = ["read_document"]
    if local_files:
        wanted.append("ingest_file")
    if removal:
        wanted.append("remove_document")
    for name in wanted:
        definition = SERVER_TOOLS[name]
        tools[name] = ToolSpec(name, definition["description"],
                               _paged(name, definition["input_schema"]), shared=False)
    return tools


def _paged(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if name not in PAGED_LISTS:
        return schema
    paged = copy.deepcopy(schema)
    paged["properties"]["cursor"] = CURSOR
    return paged
