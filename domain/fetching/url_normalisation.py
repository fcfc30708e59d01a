"""Normalising URLs: one spelling per resource; code hosts' raw text, not their viewers."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from encodings import idna
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from ..errors import ErrorKind, SheafError


def is_url(source: str) -> bool:
    """Whether a source names an http(s) URL rather than a file."""
    return source.strip().lower().startswith(("http://", "https://"))


_DEFAULT_PORTS = {"http": 80, "https": 443}
_GITHUB_BLOB = re.compile(r"^/([^/]+)/([^/]+)/blob/(.+)$")
_GIST = re.compile(r"^/([^/]+)/([0-9a-fA-F]+)/?$")
# UTS-46 maps these to "." before labels are split; so do HTTP stacks and browsers.
_LABEL_SEPARATORS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": ".",
                                   "\ufe52": "."})
# What may remain in a host once it is normalised: LDH labels, "_" (seen in real names),
# nothing else (IPv6 literals are normalised on their own path).
_CLEAN_HOST = re.compile(r"^[a-z0-9_.-]+$")


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


def canonical_host(host: str) -> str:
    """The ASCII host a connection to `host` will use, or `invalid_url`.

    Percent-decoding, NFKC (full-width and circled digits), the Unicode full stops, any
    script's decimal digits and IDNA are applied first, so the address judged is the one
    an HTTP stack would connect to however the host was spelled. A host that does not
    normalise to clean ASCII is refused rather than guessed at.
    """
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if "%" in text and ":" not in text:
        text = unquote(text, errors="strict")
    text = unicodedata.normalize("NFKC", text).translate(_LABEL_SEPARATORS)
    text = "".join(_ascii_digit(c) for c in text).lower()
    if ":" in text:
        address, _, zone = text.partition("%")
        try:
            literal = ipaddress.IPv6Address(address)
        except ValueError:
            raise SheafError(ErrorKind.INVALID_URL,
                             f"{host!r} is not a valid IPv6 address") from None
        return literal.compressed + (f"%{zone}" if zone else "")
    labels = text.split(".")
    trailing = labels[-1] == "" and len(labels) > 1
    if trailing:
        labels.pop()
    try:
        ascii_labels = [label if label.isascii() else idna.ToASCII(label).decode("ascii")
                        for label in labels]
    except UnicodeError as exc:
        raise SheafError(ErrorKind.INVALID_URL, f"host {host!r} is not a valid IDNA name: "
                         f"{exc}") from None
    result = ".".join(ascii_labels).lower()
    if not result or not _CLEAN_HOST.match(result) or "" in ascii_labels:
        raise SheafError(ErrorKind.INVALID_URL, f"host {host!r} does not normalise to a "
                         "clean host name")
    return result + ("." if trailing else "")


def _ascii_digit(character: str) -> str:
    value = unicodedata.decimal(character, None)
    return str(value) if value is not None and not character.isascii() else character


def normalise_url(url: str) -> str:
    """One canonical spelling: lower-case scheme and host, no default port, no fragment,
    and raw-text hosts for GitHub, GitLab and gist viewer pages. Idempotent."""
    parts = split_http_url(url)
    scheme = parts.scheme.lower()
    host = canonical_host(parts.hostname or "")
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
