"""A refused token over streamable HTTP, as the MCP SDK's client meets it: a 401 with an
RFC 6750 `WWW-Authenticate: Bearer` challenge and a JSON-RPC error body, which the SDK
reports in its own words instead of "Server returned an error response"."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError as McpError

from sheaf.entrypoints.mcp.transports import UNAUTHORIZED, bearer_guard

pytestmark = pytest.mark.anyio
TOKEN = "s3cret-token"


async def never_reached(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the guard let a request through")


def guarded_client(token: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(
        app=bearer_guard(never_reached, TOKEN)), headers=headers)


@pytest.mark.parametrize(("token", "said"), [
    (None, "this server needs Authorization: Bearer TOKEN"),
    ("wrong", "the bearer token is not the one this server was started with")])
async def test_the_sdk_reports_why_it_was_refused(token: str | None, said: str) -> None:
    async with guarded_client(token) as http:
        with pytest.raises(BaseException) as raised:
            async with Client(streamable_http_client("http://127.0.0.1/mcp",
                                                     http_client=http)):
                pass
    refused = innermost(raised.value)
    assert isinstance(refused, McpError), repr(raised.value)
    assert refused.error.code == UNAUTHORIZED
    assert refused.error.message.startswith(f"unauthorized: {said}")
    assert refused.error.data == {"kind": "unauthorized",
                                  "message": refused.error.message[len("unauthorized: "):]}


def innermost(error: BaseException) -> BaseException:
    """The error inside the client's task groups."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def test_the_401_is_an_oauth_bearer_challenge() -> None:
    async with guarded_client(None) as anonymous:
        bare = await anonymous.post("http://127.0.0.1/mcp", json={})
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"] == 'Bearer realm="sheaf"'
    async with guarded_client("wrong") as wrong:
        refused = await wrong.post("http://127.0.0.1/mcp", json={})
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="sheaf", error="invalid_token", '
                                'error_description="')
    assert refused.json()["error"]["data"]["kind"] == "unauthorized"
    assert TOKEN not in challenge and TOKEN not in refused.text
