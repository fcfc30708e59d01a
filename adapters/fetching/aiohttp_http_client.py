"""The HTTP client port over aiohttp, with the SSRF guard, size caps, timeouts and retries."""

from __future__ import annotations

import ipaddress
import logging
import ssl
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import anyio
import yarl
from aiohttp.abc import AbstractResolver

from ...application.ports.http_client import HttpResponse
from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.network_policy import (
    IPAddress,
    blocked_host_reason,
    blocked_reason,
    parse_ip_literal,
)
from ...domain.fetching.retry_after import RETRY_STATUSES, retry_after_seconds
from ...domain.fetching.url_normalisation import canonical_host, split_http_url
from .body_decoder import ACCEPT_ENCODING, CappedBody
from .caller_headers import caller_headers
from .guarded_resolver import AddressPolicy, GuardedConnector, GuardedResolver
from .http_settings import HttpSettings
from .redirect_following import (
    REDIRECT_STATUSES,
    Headers,
    follow_redirects,
    header_value,
)
from .retry_policy import RetryPolicy

logger = logging.getLogger("sheaf.http")



class AiohttpHttpClient:
    """Fetches over aiohttp under `HttpSettings`. Use as an async context manager, or call
    `aclose()`; one client keeps one connection pool."""

    def __init__(self, settings: HttpSettings | None = None, *,
                 resolver: AbstractResolver | None = None,
                 address_policy: AddressPolicy = blocked_reason) -> None:
        self.settings = settings or HttpSettings()
        self._inner_resolver = resolver
        self._policy = address_policy
        self._session: aiohttp.ClientSession | None = None
        self._closers: list[Callable[[], Awaitable[None]]] = []

    def close_with(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Run `closer` when this client closes: what fetches through the client (a
        browser whose requests it makes) ends with it."""
        self._closers.append(closer)

    async def __aenter__(self) -> AiohttpHttpClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        while self._closers:
            await self._closers.pop()()
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _open_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            settings = self.settings
            resolver: AbstractResolver | None = self._inner_resolver
            connector: aiohttp.TCPConnector
            if settings.allow_private_network:
                connector = aiohttp.TCPConnector(resolver=resolver, ttl_dns_cache=10, limit=32)
            else:
                connector = GuardedConnector(
                    resolver=GuardedResolver(self._inner_resolver, self._policy),
                    policy=self._policy, ttl_dns_cache=10, limit=32)
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                timeout=aiohttp.ClientTimeout(total=None, connect=settings.connect_timeout,
                                              sock_read=settings.read_timeout),
                headers={"User-Agent": settings.user_agent, "Accept-Encoding": ACCEPT_ENCODING},
            )
        return self._session

    async def get(self, url: str, *, accept: str,
                  headers: tuple[tuple[str, str], ...] = ()) -> HttpResponse:
        """GET `url`, following at most `max_redirects` redirects, each hop checked."""
        total = self.settings.total_timeout
        sent = {"Accept": accept, **caller_headers(headers)}
        try:
            with anyio.fail_after(total):
                return await self._follow(url, sent)
        except TimeoutError:
            raise SheafError(ErrorKind.TIMEOUT, f"no complete answer within {total:g} s",
                             url=url) from None

    async def _follow(self, url: str, sent: dict[str, str]) -> HttpResponse:
        async def fetch_one(hop: str) -> tuple[int, Headers, bytes]:
            return await self._request_with_retries(hop, sent)

        return await follow_redirects(url, fetch_one, self._check_target,
                                      self.settings.max_redirects)

    def _check_target(self, url: str) -> str:
        """The hop's URL with its host normalised, once that host is judged fetchable.

        The host is judged as written, as normalised here, and as aiohttp itself will
        spell it; the three must agree on any IP literal, so no spelling can mean one
        address to the guard and another to the connection. The connector then judges
        every address actually connected to."""
        parts = split_http_url(url)
        written = parts.hostname or ""
        try:
            host = canonical_host(written)
        except SheafError as exc:
            raise exc.with_url(url) from None
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
        if parts.username is not None:
            netloc = parts.netloc.rpartition("@")[0] + "@" + netloc
        hop = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        if self.settings.allow_private_network:
            return hop
        try:
            connect_host = yarl.URL(hop).raw_host or ""
        except (ValueError, UnicodeError) as exc:
            raise SheafError(ErrorKind.INVALID_URL, f"invalid URL: {exc}", url=url) from None
        for spelling in (written, host, connect_host):
            reason = blocked_host_reason(spelling, self._policy)
            if reason:
                raise SheafError(ErrorKind.BLOCKED_ADDRESS, reason, url=url)
        literals = {parse_ip_literal(s) for s in (host, connect_host)}
        if len(literals) > 1:
            raise SheafError(ErrorKind.INVALID_URL, f"host {written!r} does not normalise "
                             "to one address", url=url)
        literal = parse_ip_literal(host)
        if literal is not None and literal != _plain_literal(host):
            # A legacy spelling (`0x7f.1`): connect to the address that was checked.
            raise SheafError(ErrorKind.INVALID_URL,
                             f"ambiguous IPv4 spelling {written!r}; write {literal}", url=url)
        return hop

    async def _request_with_retries(self, url: str, sent: dict[str, str]
                                    ) -> tuple[int, Headers, bytes]:
        settings = self.settings
        policy = RetryPolicy(settings.retries, settings.backoff,
                             max_wait=max(settings.max_retry_after, settings.backoff))
        attempt = 0
        while True:
            try:
                status, headers, body = await self._request(url, sent)
            except SheafError as exc:
                if exc.kind is not ErrorKind.CONNECTION or not policy.allows(attempt):
                    raise
                delay = policy.delay(attempt)
                logger.debug("retrying %s after %s in %.2f s", url, exc.message, delay)
            else:
                if status not in RETRY_STATUSES or not policy.allows(attempt):
                    return status, headers, body
                asked = None
                if status == 429:
                    asked = retry_after_seconds(header_value(headers, "retry-after"),
                                                datetime.now(UTC))
                    if asked is not None and asked > settings.max_retry_after:
                        return status, headers, body
                delay = policy.delay(attempt, asked)
                logger.debug("retrying %s after HTTP %d in %.2f s", url, status, delay)
            attempt += 1
            await anyio.sleep(delay)

    async def _request(self, url: str, sent: dict[str, str]
                       ) -> tuple[int, Headers, bytes]:
        session = self._open_session()
        try:
            async with session.get(url, headers=sent,
                                   allow_redirects=False) as response:
                headers = tuple((k, v) for k, v in response.headers.items())
                if response.status in REDIRECT_STATUSES or response.status in RETRY_STATUSES:
                    return response.status, headers, b""
                declared = response.content_length
                if declared is not None and declared > self.settings.max_bytes:
                    raise SheafError(
                        ErrorKind.TOO_LARGE,
                        f"declared {declared} bytes, over the {self.settings.max_bytes} limit",
                        url=url, status=response.status)
                body = CappedBody(response.headers.get("Content-Encoding"),
                                  self.settings.max_bytes, url)
                async for chunk in response.content.iter_chunked(self.settings.read_chunk):
                    body.feed(chunk)
                return response.status, headers, body.finish()
        except SheafError as exc:
            raise exc.with_url(url) from None
        except aiohttp.ClientConnectorDNSError as exc:
            raise SheafError(ErrorKind.DNS, f"cannot resolve {urlsplit(url).hostname}: "
                             f"{exc.os_error}", url=url) from None
        except (aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError,
                ssl.SSLError) as exc:
            raise SheafError(ErrorKind.TLS, f"TLS failure: {exc}", url=url) from None
        except (aiohttp.ServerTimeoutError, aiohttp.ConnectionTimeoutError,
                aiohttp.SocketTimeoutError) as exc:
            raise SheafError(ErrorKind.TIMEOUT, f"timed out: {exc}", url=url) from None
        except aiohttp.InvalidURL as exc:
            raise SheafError(ErrorKind.INVALID_URL, f"invalid URL: {exc}", url=url) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise SheafError(ErrorKind.CONNECTION, f"connection failed: {exc}",
                             url=url) from None


def _plain_literal(host: str) -> IPAddress | None:
    """The address when `host` is written the standard way, else None."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
