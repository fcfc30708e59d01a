"""`sheaf serve`: the HTTP API on one store."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from aiohttp import web

from sheaf.domain.ingestion import DEFAULT_SPACE
from sheaf.entrypoints.composition import (
    blob_folder,
    build_embedder,
    build_knowledge,
    build_language_model,
    token_budget,
)
from sheaf.entrypoints.configuration import embedder_spec, http_settings, store_path
from sheaf.entrypoints.http_api import ApiSettings, build_app


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="serve the HTTP API (see /openapi.json)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--token", help="require 'Authorization: Bearer TOKEN' (or set "
                                       "SHEAF_API_TOKEN); needed off loopback")
    serve.add_argument("--store", help="the DuckDB file")
    serve.add_argument("--space", default=DEFAULT_SPACE, help="the default space")
    serve.add_argument("--embedder", help="as for search (default SHEAF_EMBEDDER)")
    serve.add_argument("--max-pending", type=int, default=8,
                       help="ingests at once before 429 (default 8)")
    serve.add_argument("--allow-private", action="store_true",
                       help="let ingests fetch loopback and private addresses")
    serve.set_defaults(run=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("SHEAF_API_TOKEN")
    if not token and args.host not in ("127.0.0.1", "localhost", "::1"):
        print("sheaf: error: serving beyond loopback needs --token (or SHEAF_API_TOKEN)",
              file=sys.stderr)
        return 2
    path = store_path(args.store)
    settings = http_settings(allow_private=args.allow_private)

    async def make_app() -> web.Application:
        services = build_knowledge(settings, path,
                                   embedder=build_embedder(embedder_spec(args.embedder)),
                                   language_model=build_language_model(),
                                   budget=token_budget())
        return build_app(services, ApiSettings(
            space=args.space, token=token, max_upload_bytes=settings.max_bytes,
            max_pending=args.max_pending, uploads=Path(f"{blob_folder(path)}") / "uploads"))

    def announce(_: str) -> None:
        # Called once the store is open and the port bound, not before: a store locked
        # by another process or a busy port fails without having claimed to serve.
        print(f"sheaf: serving {path} on http://{args.host}:{args.port} "
              f"({'token required' if token else 'no token'})", file=sys.stderr, flush=True)

    web.run_app(make_app(), host=args.host, port=args.port, print=announce,
                access_log=None)
    return 0
