"""Tool schemas: valid JSON Schema, and the MCP tools and the LLM tools share one
definition (the server adds only its paging cursor)."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from sheaf import Knowledge
from sheaf.entrypoints.mcp.tool_catalogue import CURSOR, PAGED_LISTS, server_tools


def every_tool() -> dict[str, object]:
    return dict(server_tools(local_files=True, removal=True))


@pytest.mark.parametrize("name", list(every_tool()))
def test_each_schema_is_valid_json_schema(name: str) -> None:
    schema = server_tools(local_files=True, removal=True)[name].input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft7Validator.check_schema(schema)  # what older clients check against
    assert schema["type"] == "object" and schema["additionalProperties"] is False


def test_mcp_tools_and_llm_tools_come_from_one_definition() -> None:
    mcp = server_tools(local_files=True, removal=True)
    for style in ("anthropic", "openai"):
        for definition in Knowledge.tools(style):
            llm = definition if style == "anthropic" else definition["function"]
            name = llm["name"]
            schema = copy.deepcopy(mcp[name].input_schema)
            if name in PAGED_LISTS:
                assert schema["properties"].pop("cursor") == CURSOR
            assert schema == llm["input_schema" if style == "anthropic" else "parameters"]
            assert mcp[name].description == llm["description"] and mcp[name].shared


def test_server_only_tools_depend_on_how_it_was_started() -> None:
    plain = server_tools(local_files=False, removal=False)
    assert {"ingest_file", "remove_document"}.isdisjoint(plain)
    assert "read_document" in plain
    assert {"ingest_file", "remove_document"} <= set(every_tool())


def test_no_tool_takes_a_parameter_that_could_lift_the_server_rules() -> None:
    for tool in server_tools(local_files=True, removal=True).values():
        names = set(tool.input_schema["properties"])
        assert not {n for n in names if "private" in n or "allow" in n or "folder" in n}
