"""Normalising URLs: one spelling per resource; code hosts' raw text, not their viewers."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urlsplit, urlunsplit

from sheaf.domain.errors import ErrorKind, SheafError

_DEFAULT_PORTS = {"http": 80, "https": 443}
_GITHUB_BLOB = re.compile(r"^/([^/]+)/([^/]+)/blob/(.+)$")
_GIST = re.compile(r"^/([^/]+)/([0-9a-fA-F]+)/?$")


def split_http_url(url: str) -> SplitResult:
    """Split an http(s) URL, refusing anything else with `invalid_url`."""
    candidate = url.strip()
    try:
        parts = urlsplit(candidate)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise SheafError(ErrorKind.INVALID_URL, f"malformed URL: {exc}", url=url) from None
    if parts.scheme.lower() not in _DEFAULT_PORTS:
        raise SheafError(ErrorKind.INVALID_URL,
                         f"only http and https URLs are fetched, not {parts.scheme or 'none'!r}",
                         url=url)
    if not parts.hostname:
        raise SheafError(ErrorKind.INVALID_URL, "URL has no host", url=url)
    return parts


def normalise_url(url: str) -> str:
    """One canonical spelling: lower-case scheme and host, no default port, no fragment,
    and raw-text hosts for GitHub, GitLab and gist viewer pages. Idempotent."""
    parts = split_http_url(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None and parts.port != _DEFAULT_PORTS[scheme]:
        netloc += f":{parts.port}"
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{netloc}"
    path = parts.path or "/"
    query = parts.query

    if host in ("github.com", "www.github.com"):
        match = _GITHUB_BLOB.match(path)
        if match:
            owner, repo, rest = match.groups()
            return urlunsplit(("https", "raw.githubusercontent.com", f"/{owner}/{repo}/{rest}",
                               "", ""))
    if host == "gist.github.com":
        match = _GIST.match(path)
        if match:
            user, gist_id = match.groups()
            return urlunsplit(("https", "gist.githubusercontent.com", f"/{user}/{gist_id}/raw",
                               "", ""))
    if "/-/blob/" in path:
        path = path.replace("/-/blob/", "/-/raw/", 1)
    return urlunsplit((scheme, netloc, path, query, ""))
