"""The HTTP client port: GET a URL safely and hand back what the server really sent."""

from __future__ import annotations

from typing import Protocol

import attrs


@attrs.frozen
class HttpResponse:
    """A complete response after redirects; the body is already size-capped and decoded
    from its transfer coding (gzip, deflate, brotli)."""

    url: str
    """The final URL, after redirects."""
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    redirects: tuple[str, ...] = ()
    """Every URL that answered with a redirect, in order."""

    def header(self, name: str) -> str | None:
        """The first value of a header, matched case-insensitively."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)

    @property
    def content_type(self) -> str | None:
        return self.header("content-type")


class HttpClient(Protocol):
    """Fetches URLs under sheaf's safety rules.

    Implementations follow redirects themselves (at most their configured number),
    refuse non-public addresses unless told otherwise, cap the body size, and raise
    `SheafError` (timeout, dns, tls, connection, too_large, blocked_address,
    too_many_redirects, redirect_loop, invalid_url). Non-2xx answers are returned, not
    raised: what a status means depends on the caller.
    """

    async def get(self, url: str, *, accept: str,
                  headers: tuple[tuple[str, str], ...] = ()) -> HttpResponse:
        """GET `url` with the given Accept header and any other request `headers`
        (validators such as If-None-Match: a `304` comes back as a response)."""
        ...
