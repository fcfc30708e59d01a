"""`sheaf serve`: the HTTP API on one store."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import anyio
import click

from ...domain.errors import configuration_error
from ..api.settings import ALL_GROUPS, Settings
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
def serve(host: str, port: int, token: str | None, tokens: str | None,
          store: Path | None, space: str, embedder: str | None, max_pending: int,
          allow_private: bool) -> None:
    """Serve the HTTP API (see /openapi.json)."""
    from ..http.token_scopes import parse_token_scopes

    scopes = parse_token_scopes(tokens)
    if not (token or scopes) and host not in LOOPBACK:
        raise click.UsageError("serving beyond loopback needs --token or --tokens (or "
                               "SHEAF_API_TOKEN, SHEAF_API_TOKENS)")
    settings = settings_for(ALL_GROUPS, store=store, space=space, embedder=embedder,
                            allow_private=allow_private or None, api_token=token)
    anyio.run(_serve, settings, host, port, max_pending, scopes)


async def _serve(settings: Settings, host: str, port: int, max_pending: int,
                 scopes: tuple[Any, ...] = ()) -> None:
    from aiohttp import web

    from ..api.composition import blob_folder
    from ..api.knowledge import Knowledge
    from ..holder.store_holder import holding
    from ..http.http_api import ApiSettings, build_app

    async with Knowledge.open(settings=settings) as kb:
        # The store is opened before the port is bound and anything is announced: a
        # store locked by another process fails without having claimed to serve.
        await kb.status()
        app = build_app(kb, ApiSettings(
            space=settings.space, token=settings.api_token, scopes=scopes,
            max_upload_bytes=settings.fetch.max_bytes, max_pending=max_pending,
            uploads=blob_folder(settings.store) / "uploads"))
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            try:
                await site.start()
            except OSError as exc:  # the port taken, or an address not on this machine
                raise configuration_error(
                    "--port", f"cannot listen on {host}:{port}: {exc.strerror or exc}"
                ) from None
            port = runner.addresses[0][1]  # the one bound, when --port 0 asked for any
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
            with anyio.CancelScope(shield=True):
                await runner.cleanup()
