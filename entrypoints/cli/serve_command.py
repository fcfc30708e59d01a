"""`sheaf serve`: the HTTP API on one store."""

from __future__ import annotations

import gc
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import click

from ...domain.errors import configuration_error
from ..api.settings import ALL_GROUPS, Settings
from ..http.browser_requests import AllowedHosts
from ..http.server_limits import ServerLimits
from .cli_options import settings_for, store_option

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def register(group: click.Group) -> None:
    group.add_command(serve)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option("--token", envvar="SHEAF_API_TOKEN", show_envvar=True,
              help="require 'Authorization: Bearer TOKEN'; needed off loopback")
@click.option("--tokens", envvar="SHEAF_API_TOKENS", show_envvar=True,
              metavar="SPACE:read|write:TOKEN ...",
              help="tokens that reach one space ('*': every space), to read it or to "
                   "write it too; beside --token, which reaches every space")
@store_option
@click.option("--space", default="default", show_default=True, help="the default space")
@click.option("--embedder", help="as for search (or SHEAF_EMBEDDER; default hashing)")
@click.option("--max-pending", type=click.IntRange(min=1), default=8, show_default=True,
              help="ingests at once before 429")
@click.option("--allow-private", is_flag=True,
              help="let ingests fetch loopback and private addresses")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="a Host name clients may use besides loopback names and --host "
                   "(repeatable); other names are refused 421 (DNS rebinding)")
@click.option("--max-connections", type=click.IntRange(min=1),
              default=ServerLimits().max_connections, show_default=True,
              help="open connections at once before 503")
@click.option("--extract-processes", type=click.IntRange(min=0), default=None,
              help="child processes uploads and files are extracted in (default: the "
                   "CPU count, at most --max-pending; 0: worker threads, which slows "
                   "other requests during a large ingest)")
def serve(host: str, port: int, token: str | None, tokens: str | None,
          store: Path | None, space: str, embedder: str | None, max_pending: int,
          allow_private: bool, allowed_hosts: tuple[str, ...], max_connections: int,
          extract_processes: int | None) -> None:
    """Serve the HTTP API (see /openapi.json)."""
    from ..http.token_scopes import parse_token_scopes

    scopes = parse_token_scopes(tokens)
    if not (token or scopes) and host not in LOOPBACK:
        raise click.UsageError("serving beyond loopback needs --token or --tokens (or "
                               "SHEAF_API_TOKEN, SHEAF_API_TOKENS)")
    settings = settings_for(ALL_GROUPS, store=store, space=space, embedder=embedder,
                            allow_private=allow_private or None, api_token=token)
    allowed = AllowedHosts.serving(host, allowed_hosts, token=bool(token or scopes))
    limits = ServerLimits(max_connections=max_connections)
    if extract_processes is None:
        extract_processes = min(os.cpu_count() or 1, max_pending)
    anyio.run(_serve, settings, host, port, max_pending, allowed, limits, scopes,
              extract_processes)


async def _serve(settings: Settings, host: str, port: int, max_pending: int,
                 allowed: AllowedHosts, limits: ServerLimits,
                 scopes: tuple[Any, ...] = (), extract_processes: int = 0) -> None:
    from aiohttp import web

    from ..api.composition import blob_folder, import_ingestion
    from ..api.knowledge import Knowledge
    from ..holder.store_holder import holding
    from ..http.http_api import ApiSettings, build_app
    from ..http.server_limits import bound_port, listen

    async with Knowledge.open(settings=settings,
                              extraction_processes=extract_processes) as kb:
        # The store is opened before the port is bound and anything is announced: a
        # store locked by another process fails without having claimed to serve.
        status = await kb.status()
        await anyio.to_thread.run_sync(import_ingestion)  # not on the first ingest's loop
        # What start-up made lives as long as the server: kept out of the collector's
        # generations, full collections (which hold the GIL) walk only what came after.
        gc.freeze()
        app = build_app(kb, ApiSettings(
            space=settings.space, token=settings.api_token, scopes=scopes,
            allowed_hosts=allowed, store_status=status,
            max_upload_bytes=settings.fetch.max_bytes, max_pending=max_pending,
            uploads=blob_folder(settings.store) / "uploads"))
        # aiohttp closes a connection idle this long between requests.
        runner = web.AppRunner(app, access_log=None, keepalive_timeout=15)
        await runner.setup()
        listening = None
        try:
            assert runner.server is not None
            try:
                listening = await listen(runner.server, host, port, limits)
            except OSError as exc:  # the port taken, or an address not on this machine
                raise configuration_error(
                    "--port", f"cannot listen on {host}:{port}: {exc.strerror or exc}"
                ) from None
            port = bound_port(listening)  # the one bound, when --port 0 asked for any
            click.echo(f"sheaf: serving {settings.location} on http://{host}:{port} "
                       f"({'token required' if settings.api_token or scopes else 'no token'})",
                       err=True)
            # Other sheaf commands on this store run through it meanwhile (ADR-0022).
            async with holding(kb, settings, "sheaf serve"):
                # Ctrl-C or a service manager's SIGTERM: stop serving, close the store,
                # exit 0.
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        break
            click.echo("sheaf: stopped", err=True)
        finally:
            if listening is not None:
                listening.close()
            with anyio.CancelScope(shield=True):
                await runner.cleanup()
