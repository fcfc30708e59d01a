"""Following redirects by hand, so every hop is checked before it is fetched."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urldefrag, urljoin

from ...application.ports.http_client import HttpResponse
from ...domain.errors import ErrorKind, SheafError

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
Headers = tuple[tuple[str, str], ...]
FetchOne = Callable[[str], Awaitable[tuple[int, Headers, bytes]]]


def header_value(headers: Headers, name: str) -> str | None:
    """First value of a header, matched case-insensitively."""
    wanted = name.lower()
    return next((v for k, v in headers if k.lower() == wanted), None)


async def follow_redirects(url: str, fetch_one: FetchOne, check_target: Callable[[str], str],
                           max_redirects: int) -> HttpResponse:
    """Fetch `url`, following at most `max_redirects` redirects; loops are refused.

    `check_target` judges each hop and returns the spelling to fetch (its host
    normalised), so the URL fetched is exactly the URL that was judged."""
    current = urldefrag(url.strip())[0]
    seen: set[str] = set()
    redirects: list[str] = []
    while True:
        current = check_target(current)
        if current in seen:
            raise SheafError(ErrorKind.REDIRECT_LOOP,
                             f"redirect loop: {current} was already visited", url=url)
        seen.add(current)
        status, headers, body = await fetch_one(current)
        location = header_value(headers, "location")
        if status in REDIRECT_STATUSES and location:
            if len(redirects) >= max_redirects:
                raise SheafError(ErrorKind.TOO_MANY_REDIRECTS,
                                 f"more than {max_redirects} redirects", url=url)
            redirects.append(current)
            current = urldefrag(urljoin(current, location))[0]
            continue
        return HttpResponse(url=current, status=status, headers=headers, body=body,
                            redirects=tuple(redirects))
