"""An in-memory HTTP client: the same contract as the aiohttp adapter, with no sockets."""

from __future__ import annotations

import ipaddress
from urllib.parse import urldefrag

import attrs

from ...application.ports.http_client import HttpResponse
from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.network_policy import blocked_host_reason, blocked_reason
from ...domain.fetching.url_normalisation import canonical_host, split_http_url
from .caller_headers import caller_headers
from .http_settings import HttpSettings
from .redirect_following import Headers, follow_redirects


@attrs.frozen
class CannedResponse:
    """What the fake answers for one URL."""

    status: int = 200
    body: bytes = b""
    headers: Headers = ()


@attrs.frozen
class SeenRequest:
    url: str
    accept: str
    headers: tuple[tuple[str, str], ...] = ()


class MemoryHttpClient:
    """Answers from a table of canned responses; unknown URLs get 404.

    Applies the same redirect, size and address rules as the real adapter; host names
    resolve through `dns` (name -> address) so address checks can be exercised.
    """

    def __init__(self, settings: HttpSettings | None = None,
                 dns: dict[str, str] | None = None) -> None:
        self.settings = settings or HttpSettings()
        self.dns = dict(dns or {})
        self.requests: list[SeenRequest] = []
        self._routes: dict[str, CannedResponse] = {}

    def add(self, url: str, body: bytes | str = b"", *, status: int = 200,
            content_type: str | None = None, headers: dict[str, str] | None = None) -> None:
        """Serve `body` at `url`."""
        data = body.encode() if isinstance(body, str) else body
        pairs = list((headers or {}).items())
        if content_type is not None:
            pairs.append(("Content-Type", content_type))
        self._routes[urldefrag(url)[0]] = CannedResponse(status, data, tuple(pairs))

    def redirect(self, url: str, to: str, status: int = 302) -> None:
        """Answer `url` with a redirect to `to`."""
        self.add(url, status=status, headers={"Location": to})

    async def get(self, url: str, *, accept: str,
                  headers: tuple[tuple[str, str], ...] = ()) -> HttpResponse:
        caller_headers(headers)

        async def fetch_one(hop: str) -> tuple[int, Headers, bytes]:
            self.requests.append(SeenRequest(hop, accept, headers))
            canned = self._routes.get(hop, CannedResponse(404, b"not found"))
            if _not_modified(canned, headers):
                return 304, canned.headers, b""
            if len(canned.body) > self.settings.max_bytes:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"body exceeds the {self.settings.max_bytes} byte limit",
                                 url=hop, status=canned.status)
            return canned.status, canned.headers, canned.body

        return await follow_redirects(url, fetch_one, self._check_target,
                                      self.settings.max_redirects)

    def _check_target(self, url: str) -> str:
        host = canonical_host(split_http_url(url).hostname or "")
        if self.settings.allow_private_network:
            return url
        reason = blocked_host_reason(host)
        resolved = self.dns.get(host.lower().rstrip("."))
        if reason is None and resolved is not None:
            reason = blocked_reason(ipaddress.ip_address(resolved))
        if reason:
            raise SheafError(ErrorKind.BLOCKED_ADDRESS, reason, url=url)
        return url


def _not_modified(canned: CannedResponse, sent: tuple[tuple[str, str], ...]) -> bool:
    """Whether a server would answer `304`: the validator sent matches the canned one."""
    if not 200 <= canned.status < 300:
        return False
    asked = {k.lower(): v for k, v in sent}
    have = {k.lower(): v for k, v in canned.headers}
    if "if-none-match" in asked:
        return asked["if-none-match"] == have.get("etag")
    return "if-modified-since" in asked and asked["if-modified-since"] == have.get(
        "last-modified")
