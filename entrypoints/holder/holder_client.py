"""Requests to the loopback API of the process that holds a store (ADR-0022).

http.client, not aiohttp: a command that goes through the holder starts without the
HTTP stack, and loopback requests must never go through a proxy from the environment.
A client keeps its connection open between requests until it is closed: a holder that
is done stops taking new connections, then answers the open ones until they go quiet,
so the requests of one command are all answered (or the first is refused, and the
command opens the store itself). Each call is one blocking request; `HeldKnowledge`
makes them off the event loop.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator, Mapping
from typing import Any

from ...domain.errors import ErrorKind, SheafError
from ..api.held_store import HolderRecord
from .held_operations import OPERATIONS_PATH

# The API's own refusals, as the kind a direct run raises for the same mistake.
_API_KINDS = {"invalid_request": ErrorKind.INVALID_QUERY}
# What a holder of another sheaf version answers: its public API's refusal of a path it
# does not have, or an operation it does not know.
_NOT_HELD = frozenset({"http_error", "unknown_operation"})
# What a connection the holder no longer takes ends in: refused once it stopped
# listening, reset when it stopped before taking one that was already on its way.
_GONE = (ConnectionRefusedError, ConnectionResetError, BrokenPipeError)


class HolderUnreachable(Exception):
    """The holder's address answers nothing (it just exited): open the store instead."""


class HolderClient:
    """Calls of one holder's operations, on connections kept open until `close`."""

    def __init__(self, holder: HolderRecord, timeout: float = 600.0) -> None:
        self.holder = holder
        parsed = urllib.parse.urlsplit(holder.url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self._timeout = timeout
        self._idle: list[http.client.HTTPConnection] = []
        self._answered = False

    def call(self, operation: str, space: str, arguments: Mapping[str, Any]) -> Any:
        """The operation's answer on `space`, as JSON; its failure as the `SheafError` a
        direct run raises."""
        connection, response = self._open(operation, space, arguments)
        try:
            answer = response.read()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise self._stopped(exc) from None
        self._release(connection, response)
        return json.loads(answer)

    def lines(self, operation: str, space: str, arguments: Mapping[str, Any]
              ) -> Iterator[Any]:
        """A JSON-lines answer, each line as it arrives (the request is sent on the first
        `next`)."""
        connection, response = self._open(operation, space, arguments)
        finished = False
        try:
            while line := response.readline():
                yield json.loads(line)
            finished = True
        except (OSError, http.client.HTTPException) as exc:
            raise self._stopped(exc) from None
        finally:
            if finished:
                self._release(connection, response)
            else:  # left early: what is still coming is not read
                connection.close()

    def close(self) -> None:
        """Close the connections kept open; the holder may stop once they are closed."""
        while self._idle:
            self._idle.pop().close()

    def _open(self, operation: str, space: str, arguments: Mapping[str, Any]
              ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        body = json.dumps({"space": space, "arguments": dict(arguments)},
                          ensure_ascii=False).encode()
        headers = {"Authorization": f"Bearer {self.holder.token}",
                   "Content-Type": "application/json"}
        try:
            connection = self._idle.pop()
        except IndexError:
            connection = http.client.HTTPConnection(self._host, self._port,
                                                    timeout=self._timeout)
        try:
            connection.request("POST", OPERATIONS_PATH + urllib.parse.quote(operation),
                               body=body, headers=headers)
            response = connection.getresponse()
        except _GONE as exc:
            connection.close()
            if not self._answered:  # nothing of the command has run there
                raise HolderUnreachable(str(exc)) from None
            raise self._stopped(exc) from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise SheafError(ErrorKind.INTERNAL, f"the store's holder (process "
                             f"{self.holder.pid}) failed to answer: {exc}") from None
        if response.status >= 400:
            try:
                raise failure(response.status, response.read(), self.holder)
            finally:
                connection.close()
        self._answered = True
        return connection, response

    def _release(self, connection: http.client.HTTPConnection,
                 response: http.client.HTTPResponse) -> None:
        if response.will_close:
            connection.close()
        else:
            self._idle.append(connection)

    def _stopped(self, exc: Exception) -> SheafError:
        return SheafError(ErrorKind.INTERNAL, f"the store's holder (process "
                          f"{self.holder.pid}) stopped answering: {exc}")


def failure(status: int, body: bytes, holder: HolderRecord) -> Exception:
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
    if kind in _NOT_HELD:
        return HolderUnreachable(f"{holder.url} does not answer this sheaf's operations "
                                 f"(another version of sheaf?): {detail}")
    return known_error(kind, detail)


def known_error(kind: str, detail: str) -> SheafError:
    """A failure the holder names by its kind, as the `SheafError` of that kind."""
    try:
        return SheafError(ErrorKind(kind), detail)
    except ValueError:
        return SheafError(_API_KINDS.get(kind, ErrorKind.INTERNAL), detail)
