"""Shared fixtures: the anyio backend and a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from tests.local_server import LocalServer
from tests.postgres_server import postgres_database, postgres_schema_url, postgres_server
from tests.s3_server import s3_bucket, s3_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def local_server() -> AsyncIterator[LocalServer]:
    server = LocalServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


__all__ = ["postgres_database", "postgres_schema_url", "postgres_server", "s3_bucket",
           "s3_server", "web"]
