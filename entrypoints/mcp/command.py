"""`sheaf mcp`: the MCP server on one store, over stdio or streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import anyio
import click

from ..api.settings import ALL_GROUPS
from ..cli.cli_options import settings_for, store_options
from .output_budget import DEFAULT_TOKEN_BUDGET, MINIMUM_TOKEN_BUDGET

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def register(group: click.Group) -> None:
    group.add_command(mcp)


@click.command()
@click.option("--http", "over_http", is_flag=True,
              help="serve streamable HTTP at http://HOST:PORT/mcp (default: stdio)")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option("--token", envvar="SHEAF_API_TOKEN", show_envvar=True,
              help="with --http: require 'Authorization: Bearer TOKEN'; needed off loopback")
@click.option("--allow-folder", "folders", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="a folder ingest_file may read (repeatable; none: no local files)")
@click.option("--allow-remove", is_flag=True, help="offer the remove_document tool")
@click.option("--allow-private", is_flag=True,
              help="let ingest_url fetch loopback and private addresses "
                   "(or SHEAF_ALLOW_PRIVATE_NETWORK=1)")
@click.option("--max-result-tokens", type=click.IntRange(min=MINIMUM_TOKEN_BUDGET),
              envvar="SHEAF_MCP_MAX_RESULT_TOKENS", show_envvar=True,
              default=DEFAULT_TOKEN_BUDGET, show_default=True,
              help="most tokens (about 4 characters each) in one tool result")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="with --http: a Host name clients may use besides loopback names and "
                   "--host (repeatable); other names are refused 421 (DNS rebinding)")
@store_options
def mcp(over_http: bool, host: str, port: int, token: str | None, folders: tuple[Path, ...],
        allow_remove: bool, allow_private: bool, max_result_tokens: int,
        allowed_hosts: tuple[str, ...], store: Path | None, space: str,
        embedder: str | None) -> None:
    """Serve the knowledge base to agents over MCP (the sheaf[mcp] extra)."""
    if over_http and not token and host not in LOOPBACK:
        raise click.UsageError("serving MCP beyond loopback needs --token (or "
                               "SHEAF_API_TOKEN)")
    try:
        from .server import ServerSettings
        from .transports import serve_http, serve_stdio
    except ImportError as missing:
        raise click.UsageError(f"the MCP server needs the mcp extra: pip install "
                               f"'sheaf[mcp]' ({missing})") from None
    settings = settings_for(ALL_GROUPS, store=store, space=space, embedder=embedder,
                            allow_private=allow_private or None, api_token=token)
    server = ServerSettings.of(folders=folders, allow_remove=allow_remove,
                               token_budget=max_result_tokens)
    if over_http:
        anyio.run(lambda: serve_http(settings, server, host=host, port=port,
                                     allowed_hosts=allowed_hosts))
    else:
        anyio.run(serve_stdio, settings, server)
