"""A CLI command run through the process that holds the store (ADR-0022).

The holder's loopback API answers with the records of `serialisation`, which the CLI
prints for a direct run too, so output is the same either way. http.client, not aiohttp:
a command that goes through the holder starts without the HTTP stack, and loopback
requests must never go through a proxy from the environment.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

from ...domain.errors import ErrorKind, SheafError
from .store_holder import HolderRecord

# The API's own refusals, as the kind a direct run raises for the same mistake.
_API_KINDS = {"invalid_request": ErrorKind.INVALID_QUERY}


class HolderUnreachable(Exception):
    """The holder's address answers nothing (it just exited): open the store instead."""


class HolderClient:
    """Requests to one holder's API, on one space."""

    def __init__(self, holder: HolderRecord, space: str, timeout: float = 600.0) -> None:
        self.holder = holder
        self.space = space
        parsed = urllib.parse.urlsplit(holder.url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self._timeout = timeout

    def get(self, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
        return json.loads(self._request("GET", path, params))

    def text(self, path: str, params: Sequence[tuple[str, str]] = ()) -> str:
        return self._request("GET", path, params).decode("utf-8")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return json.loads(self._request("POST", path, (), body))

    def delete(self, path: str) -> Any:
        return json.loads(self._request("DELETE", path))

    def lines(self, path: str, body: dict[str, Any]) -> Iterator[Any]:
        """A JSON-lines answer, each line as it arrives."""
        connection, response = self._open("POST", path, (), body)
        try:
            while line := response.readline():
                yield json.loads(line)
        except (OSError, http.client.HTTPException) as exc:
            raise SheafError(ErrorKind.INTERNAL, f"the store's holder (process "
                             f"{self.holder.pid}) stopped answering: {exc}") from None
        finally:
            connection.close()

    def _request(self, method: str, path: str, params: Sequence[tuple[str, str]] = (),
                 body: dict[str, Any] | None = None) -> bytes:
        connection, response = self._open(method, path, params, body)
        try:
            return response.read()
        finally:
            connection.close()

    def _open(self, method: str, path: str, params: Sequence[tuple[str, str]],
              body: dict[str, Any] | None
              ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        query = urllib.parse.urlencode([("space", self.space), *params])
        headers = {"Authorization": f"Bearer {self.holder.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(self._host, self._port,
                                                timeout=self._timeout)
        try:
            connection.request(method, f"{path}?{query}", body=data, headers=headers)
            response = connection.getresponse()
        except ConnectionRefusedError as exc:
            connection.close()
            raise HolderUnreachable(str(exc)) from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise SheafError(ErrorKind.INTERNAL, f"the store's holder (process "
                             f"{self.holder.pid}) failed to answer: {exc}") from None
        if response.status >= 400:
            try:
                raise _failure(response.status, response.read(), self.holder)
            finally:
                connection.close()
        return connection, response


def _failure(status: int, body: bytes, holder: HolderRecord) -> Exception:
    """The holder's problem document as the error a direct run raises. A refused token
    or an answer that is no sheaf problem means the address is no longer this holder's
    (its pid and port reused): unreachable, so the command opens the store itself."""
    try:
        found = json.loads(body)
        kind, detail = str(found["kind"]), str(found["detail"])
    except (ValueError, KeyError, TypeError):
        return HolderUnreachable(f"{holder.url} answered {status}, not as sheaf does")
    if status == 401:
        return HolderUnreachable(f"{holder.url} refused the holder's token")
    try:
        return SheafError(ErrorKind(kind), detail)
    except ValueError:
        return SheafError(_API_KINDS.get(kind, ErrorKind.INTERNAL), detail)
