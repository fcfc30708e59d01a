"""Shared fixtures: the anyio backend and a real aiohttp server on 127.0.0.1; the rule
that a test asking for a real PostgreSQL or S3 server is an integration test; and the
property tests' example budget (tests/property_examples.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from tests import property_examples
from tests.local_server import LocalServer
from tests.postgres_server import postgres_database, postgres_schema_url, postgres_server
from tests.s3_server import s3_bucket, s3_server

property_examples.load_profile()

SERVERS = frozenset({"postgres_server", "s3_server"})
"""The session fixtures that start a server process or thread on loopback."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `integration` every test that asks for a server, itself or through another
    fixture (a fixture that asks for one only by `request.getfixturevalue` marks its
    parameter instead). `make test` leaves them to `make test-integration`."""
    for item in items:
        if SERVERS.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


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
