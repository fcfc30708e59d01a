"""POSTing JSON to a model server (embeddings, chat completions) with retries.

Overload passes (429, 502-504, dropped connections, timeouts): retried with exponential
backoff, or after Retry-After when the server says. An input over the model's context
never passes: reported as `InputTooLong` for the caller to shrink. Anything else is a
typed error quoting the server's answer.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import aiohttp
import anyio

from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.retry_after import RETRY_STATUSES, retry_after_seconds
from ..fetching.retry_policy import RetryPolicy

_TOO_LONG = re.compile(r"too long|too large|maximum context|context length|exceed|"
                       r"too many tokens|input length", re.IGNORECASE)
MAX_WAIT = 30.0


class InputTooLong(Exception):
    """The server refused the input as longer than the model takes."""


class JsonApiClient:
    """One aiohttp session to a server; `failure` is the error kind its failures carry
    and `what` names the server in messages."""

    def __init__(self, base_url: str, *, api_key: str | None, failure: ErrorKind, what: str,
                 retries: int = 4, timeout: float = 60.0, backoff: float = 0.5) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._failure = failure
        self._what = what
        self.retries = retries
        self.backoff = backoff
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        """The decoded JSON answer to a 200."""
        url = f"{self.base_url}{path}"
        policy = RetryPolicy(self.retries, self.backoff, max_wait=MAX_WAIT)
        for attempt in range(self.retries + 1):
            last = not policy.allows(attempt)
            wait: float | None = None
            try:
                async with self._session_now().post(url, json=body,
                                                    headers=self._headers) as response:
                    if response.status == 200:
                        return await response.json(content_type=None)
                    text = (await response.text())[:500]
                    if response.status in (400, 413, 422, 500) and _TOO_LONG.search(text):
                        raise InputTooLong(text)
                    if response.status not in RETRY_STATUSES or last:
                        kind = (ErrorKind.RATE_LIMITED if response.status == 429
                                else self._failure)
                        raise SheafError(kind, f"the {self._what} answered "
                                               f"{response.status}: {text.strip()[:200]}",
                                         url=url)
                    wait = retry_after_seconds(response.headers.get("Retry-After"),
                                               datetime.now(UTC))
            except (TimeoutError, aiohttp.ClientError) as exc:
                if last:
                    kind = ErrorKind.TIMEOUT if isinstance(exc, TimeoutError) else self._failure
                    raise SheafError(kind, f"cannot reach the {self._what}: "
                                           f"{type(exc).__name__}: {exc}", url=url) from None
            except ValueError as exc:  # a 200 whose body is not JSON
                raise SheafError(self._failure, f"unreadable answer from the {self._what}: "
                                                f"{exc}", url=url) from None
            await anyio.sleep(policy.delay(attempt, wait))
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session
