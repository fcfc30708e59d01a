"""Serving a store to the other sheaf processes of its user (ADR-0022): the holder's API
on a loopback port, announced in `<store>.holder` (`api/held_store.py`) while the block
runs; another process finding the file runs its command through it (`HeldKnowledge`).
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from ..api.held_store import HolderRecord, command_line, compatibility, publish, withdraw

if TYPE_CHECKING:
    import asyncio

    from aiohttp import web

    from ..api.knowledge_api import KnowledgeApi
    from ..api.settings import Settings
    from .holder_api import HeldRequests


@asynccontextmanager
async def holding(kb: KnowledgeApi, settings: Settings, command: str | None = None
                  ) -> AsyncIterator[HolderRecord | None]:
    """Serve the holder's API (`holder_api`) on `kb` at a loopback port with a fresh
    token and publish it in `<store>.holder` until the block ends (the file goes first,
    then the server, once the requests other processes sent it have been answered). A
    PostgreSQL store is shared by every process itself: nothing is served or published
    (None)."""
    if settings.store_url is not None:
        yield None
        return
    import secrets  # a holder's token; a command that only reads a holder file needs none

    import anyio
    from aiohttp import web

    from ..http.server_limits import ServerLimits, bound_port, listen
    from .holder_api import HeldRequests, build_holder_app

    token = secrets.token_urlsafe(32)
    requests = HeldRequests()
    runner = web.AppRunner(build_holder_app(kb, token, requests), access_log=None)
    await runner.setup()
    listening: asyncio.Server | None = None
    try:
        assert runner.server is not None
        # The holder's port is loopback-only but any local process can connect to it.
        listening = await listen(runner.server, "127.0.0.1", 0, ServerLimits())
        port = bound_port(listening)
        record = HolderRecord(os.getpid(), command or command_line(),
                              f"http://127.0.0.1:{port}", token, compatibility(settings))
        publish(settings.store, record)
        try:
            yield record
        finally:
            withdraw(settings.store, record)
            with anyio.CancelScope(shield=True):
                await _answer_the_connected(runner, listening, requests)
    finally:
        if listening is not None:
            listening.close()  # a second time is harmless
        with anyio.CancelScope(shield=True):
            await runner.cleanup()


QUIET_SECONDS = 10.0
"""How long a holder that is done keeps a connection that sends nothing: a command going
through it sends its next request at once."""


async def _answer_the_connected(runner: web.AppRunner, listening: asyncio.Server,
                                requests: HeldRequests) -> None:
    """Stop taking connections (a command finding none opens the store once it is free),
    then answer the commands already connected to the end: while a request runs, and
    while a connection stays open with the last request under `QUIET_SECONDS` ago
    (aiohttp would cancel a running one after its shutdown timeout)."""
    import anyio

    listening.close()
    requests.ended = max(requests.ended, time.monotonic())
    server = runner.server
    while requests.running or (server is not None and server.connections
                               and time.monotonic() - requests.ended < QUIET_SECONDS):
        await anyio.sleep(0.05)
