"""Which requests a web page may have made, and which of those a sheaf server refuses.

A page in any browser can send requests to a server on loopback: simple ones (a form
post, a `text/plain` body, a multipart upload) need no CORS preflight, and a page whose
name was re-pointed at 127.0.0.1 (DNS rebinding) can even read the answers. Both the
HTTP API (`sheaf serve`) and the MCP server over HTTP (`sheaf mcp --http`) answer
through the one policy here:

- `Host` must name this server: a loopback name (`localhost`, `127.0.0.0/8`, `::1`),
  the address it is bound to, or a host its operator allowed (`--allowed-host`).
  Anything else is a rebinding page and gets 421 Misdirected Request.
- `Origin`, when a browser sends one, must be the server itself (the same allowed
  hosts); `null` (sandboxed frames, redirected posts) and any other site get 403.
  `Sec-Fetch-Site: cross-site` or `same-site` on a request that changes something gets
  403 too (a browser says so even where it leaves `Origin` out).
- A body read as JSON must be declared `application/json` (415 otherwise): a page can
  send `text/plain` without a preflight, never `application/json`.

Clients that are not browsers (curl, the SDKs, agents) send no `Origin` and name the
address they connected to, so they are unaffected. Pure functions over header values:
no server framework is imported.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Iterable

import attrs

LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::", "[::]"})
# Methods a browser sends from a form or fetch without preflight that change the store.
_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@attrs.frozen
class Refusal:
    """Why a request is refused: its HTTP status, sheaf's error kind and what to do."""

    status: int
    kind: str
    detail: str


def _host_name(authority: str) -> str | None:
    """The host of a `Host` header or an origin's authority, lower-cased and without its
    port or the brackets of an IPv6 address; None when it is malformed."""
    authority = authority.strip().lower()
    if not authority or any(c in authority for c in "/?#@ \t\\"):
        return None
    if authority.startswith("["):
        end = authority.find("]")
        rest = authority[end + 1:] if end > 0 else "?"
        if rest and not rest.startswith(":"):
            return None
        name, port = authority[1:end], rest[1:]
    elif authority.count(":") > 1:
        return None  # an IPv6 address must be bracketed in a Host header
    else:
        name, _, port = authority.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def is_loopback_name(name: str) -> bool:
    """Whether `name` (a host without port or brackets) always means this machine."""
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@attrs.frozen
class AllowedHosts:
    """The names a server answers to. `checked` False: the server is bound to every
    address with a token and no `--allowed-host`, so any name may reach it (the token
    guards it); a browser's `Origin` must still be the server itself."""

    names: frozenset[str]
    checked: bool = True

    @classmethod
    def serving(cls, bound: str, extra: Iterable[str] = (), *,
                token: bool = False) -> AllowedHosts:
        """The hosts a server bound to `bound` answers to: loopback names, `bound`
        itself unless it is a wildcard, and `extra` (what its operator allowed)."""
        names = {n for n in (_host_name(e) or e.strip().lower() for e in extra) if n}
        wildcard = bound.strip().lower() in WILDCARD_ADDRESSES
        if not wildcard:
            names.add(bound.strip().strip("[]").lower())
        # Bound to all addresses, with a token and no names given: clients reach it by
        # whatever name or address they know, and the token is what keeps pages out.
        checked = not (wildcard and token and not extra)
        return cls(frozenset(names), checked)

    def allows(self, name: str) -> bool:
        return is_loopback_name(name) or name in self.names


def refusal_of(allowed: AllowedHosts, *, method: str, host: str | None,
               origin: str | None, fetch_site: str | None) -> Refusal | None:
    """Why a request with these headers is refused as coming from a web page it did not
    come from, or None. `host` is the `Host` header, `origin` the `Origin` header and
    `fetch_site` the `Sec-Fetch-Site` header, each None when absent."""
    name = _host_name(host or "")
    if allowed.checked and (name is None or not allowed.allows(name)):
        shown = (host or "")[:100]
        return Refusal(421, "misdirected_request",
                       f"this server does not answer to Host {shown!r} (a page whose name "
                       "was pointed at this address?); use localhost or 127.0.0.1, or "
                       "start the server with --allowed-host NAME")
    if origin is not None:
        refused = _foreign_origin(allowed, origin, host or "")
        if refused is not None:
            return refused
    if method.upper() in _CHANGING and (fetch_site or "").strip().lower() in (
            "cross-site", "same-site"):
        return Refusal(403, "forbidden_origin",
                       "a request another site's page made (Sec-Fetch-Site: "
                       f"{fetch_site}) cannot change this store")
    return None


def _foreign_origin(allowed: AllowedHosts, origin: str, host: str) -> Refusal | None:
    parsed = urllib.parse.urlsplit(origin.strip())
    name = _host_name(parsed.netloc) if parsed.scheme in ("http", "https") else None
    same_origin = name is not None and parsed.netloc.lower() == host.strip().lower()
    if name is not None and (allowed.allows(name) or (same_origin and not allowed.checked)):
        return None
    return Refusal(403, "forbidden_origin",
                   f"requests from the page at {origin[:100]!r} are refused: only this "
                   "server's own origin may call it from a browser")


def json_content_type(content_type: str | None) -> bool:
    """Whether a `Content-Type` declares JSON (`application/json` or `+json`), which no
    page can send to another origin without a preflight this server never grants."""
    essence = (content_type or "").split(";", 1)[0].strip().lower()
    return essence == "application/json" or (
        essence.startswith("application/") and essence.endswith("+json"))
