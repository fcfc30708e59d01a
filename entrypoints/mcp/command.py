"""`sheaf mcp`: the MCP server on one store, over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import os
import sys

import anyio

from sheaf.domain.ingestion import DEFAULT_SPACE
from sheaf.entrypoints.configuration import embedder_spec, http_settings, store_path
from sheaf.entrypoints.mcp.output_budget import DEFAULT_TOKEN_BUDGET

USAGE_ERROR = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser("mcp", help="serve the knowledge base to agents over MCP (stdio by "
                                     "default, --http for streamable HTTP)")
    mcp.add_argument("--store", help="the DuckDB file")
    mcp.add_argument("--space", default=DEFAULT_SPACE)
    mcp.add_argument("--embedder", help="as for search (default SHEAF_EMBEDDER)")
    mcp.add_argument("--allow-folder", action="append", default=[], metavar="FOLDER",
                     help="a folder whose files ingest_file may read (repeatable; none: "
                          "no local files)")
    mcp.add_argument("--allow-remove", action="store_true",
                     help="offer the remove_document tool")
    mcp.add_argument("--allow-private", action="store_true",
                     help="let ingest_url fetch loopback and private addresses")
    mcp.add_argument("--token-budget", type=int,
                     default=int(os.environ.get("SHEAF_MCP_TOKEN_BUDGET")
                                 or DEFAULT_TOKEN_BUDGET),
                     help="most tokens in one tool result (default SHEAF_MCP_TOKEN_BUDGET "
                          f"or {DEFAULT_TOKEN_BUDGET})")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8765)
    mcp.add_argument("--token", help="with --http: require 'Authorization: Bearer TOKEN' "
                                     "(or set SHEAF_API_TOKEN); needed off loopback")
    mcp.set_defaults(run=_cmd_mcp)


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from sheaf.entrypoints.mcp.server import ServerSettings
        from sheaf.entrypoints.mcp.transports import (
            LOOPBACK_HOSTS,
            StoreChoice,
            serve_http,
            serve_stdio,
        )
    except ImportError as missing:
        print(f"sheaf: error: the MCP server needs the mcp extra: pip install 'sheaf[mcp]' "
              f"({missing})", file=sys.stderr)
        return USAGE_ERROR
    token = args.token or os.environ.get("SHEAF_API_TOKEN")
    if args.http and not token and args.host not in LOOPBACK_HOSTS:
        print("sheaf: error: serving MCP beyond loopback needs --token (or "
              "SHEAF_API_TOKEN)", file=sys.stderr)
        return USAGE_ERROR
    settings = ServerSettings.of(folders=tuple(args.allow_folder),
                                 allow_remove=args.allow_remove,
                                 token_budget=args.token_budget)
    choice = StoreChoice(store_path(args.store), args.space, embedder_spec(args.embedder),
                         http_settings(allow_private=args.allow_private).allow_private_network)
    if args.http:
        anyio.run(lambda: serve_http(choice, settings, host=args.host, port=args.port,
                                     token=token))
    else:
        anyio.run(serve_stdio, choice, settings)
    return 0
