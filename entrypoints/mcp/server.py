"""The MCP server over one open `sheaf.Knowledge`, on the official SDK's low-level
`Server` (ADR-0019): tools listed from the shared definitions, calls and resource reads
sized by the output budget, progress reported on long ingests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from ...adapters.installation.package_version import version_info
from ...domain.errors import SheafError
from ..api.knowledge_api import KnowledgeApi
from . import resources
from .allowed_folders import AllowedFolders
from .output_budget import DEFAULT_TOKEN_BUDGET, OutputBudget
from .prompts import PROMPTS
from .tool_calls import ToolCalls
from .tool_catalogue import server_tools

INSTRUCTIONS = (
    "sheaf holds documents (web pages, PDFs, text files) as Markdown with exact character "
    "offsets. Search with search_knowledge, then confirm every claim with verify_claim or "
    "get_exact_quote and cite what they return (title, URL or path, section, pages, "
    "offsets); an answer that is not verified is an error: do not state the claim as the "
    "source's. Answers are "
    "kept within a size budget: when one says next_cursor or next, call again to read on.")


@attrs.frozen
class ServerSettings:
    """What the person starting the server decided; nothing a tool call can change."""

    folders: AllowedFolders = attrs.field(factory=AllowedFolders)
    allow_remove: bool = False
    budget: OutputBudget = attrs.field(factory=OutputBudget)

    @classmethod
    def of(cls, *, folders: tuple[str | Path, ...] = (), allow_remove: bool = False,
           token_budget: int = DEFAULT_TOKEN_BUDGET) -> ServerSettings:
        return cls(AllowedFolders.of(folders), allow_remove, OutputBudget(token_budget))


def build_server(knowledge: KnowledgeApi, settings: ServerSettings) -> Server[Any]:
    """An MCP server answering from `knowledge` (which stays open while it serves)."""
    tools = server_tools(local_files=bool(settings.folders.roots),
                         removal=settings.allow_remove)
    calls = ToolCalls(knowledge, tools, settings.folders, settings.budget)
    listed = [types.Tool(
        name=tool.name, description=tool.description, input_schema=tool.input_schema,
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only, destructive_hint=tool.name == "remove_document",
            open_world_hint=tool.name == "ingest_url"))
        for tool in tools.values()]

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        async def progress(done: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(done, total, message)

        answer = await calls.call(params.name, params.arguments, progress)
        return types.CallToolResult(content=[types.TextContent(text=answer.text)],
                                    structured_content=answer.structured,
                                    is_error=answer.is_error)

    async def list_resources(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        skip = _skip(params.cursor if params else None)
        page, following = await resources.list_documents(knowledge, skip)
        return types.ListResourcesResult(
            resources=[types.Resource(uri=r["uri"], name=r["name"], title=r["title"],
                                      description=r["description"],
                                      mime_type="text/markdown", size=r["size"])
                       for r in page],
            next_cursor=str(following) if following is not None else None)

    async def list_templates(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(name=name, uri_template=template, mime_type=mime,
                                   description=description)
            for name, template, mime, description in resources.TEMPLATES])

    async def read_resource(ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        try:
            piece = await resources.read(knowledge, str(params.uri), settings.budget)
        except SheafError as exc:
            raise MCPError(types.INVALID_PARAMS, f"{exc.kind.value}: {exc.message}",
                           {"kind": exc.kind.value, "message": exc.message}) from None
        meta: dict[str, Any] = {}
        if piece.start is not None:
            meta.update(start=piece.start, end=piece.end)
        if piece.next_uri:
            meta["next"] = piece.next_uri
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=piece.uri, mime_type=piece.mime_type, text=piece.text, _meta=meta or None)])

    async def list_prompts(ctx: ServerRequestContext[Any],
                           params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=prompt.name, title=prompt.title, description=prompt.description,
            arguments=[types.PromptArgument(name=a.name, description=a.description,
                                            required=a.required)
                       for a in prompt.arguments])
            for prompt in PROMPTS.values()])

    async def get_prompt(ctx: ServerRequestContext[Any],
                         params: types.GetPromptRequestParams) -> types.GetPromptResult:
        prompt = PROMPTS.get(params.name)
        if prompt is None:
            raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name!r}: sheaf has "
                           f"{', '.join(PROMPTS)}")
        try:
            text = prompt.render(params.arguments)
        except SheafError as exc:
            raise MCPError(types.INVALID_PARAMS, f"{exc.kind.value}: {exc.message}",
                           {"kind": exc.kind.value, "message": exc.message}) from None
        return types.GetPromptResult(description=prompt.description, messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=text))])

    return Server(
        "sheaf", version=version_info().version, instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_templates, on_read_resource=read_resource,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt)


def _skip(cursor: str | None) -> int:
    if not cursor:
        return 0
    if not cursor.isdigit():
        raise MCPError(types.INVALID_PARAMS, f"not a cursor sheaf gave: {cursor!r}")
    return int(cursor)
