"""The address a crawl knows a page by, so one page reached by several spellings is
fetched once."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ..fetching.url_normalisation import normalise_url

TRACKING_PARAMETERS = frozenset({
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid",
    "_ga", "_gl", "igshid", "ref_src", "spm",
})
"""Query parameters that say how a visitor arrived, never what the page is."""
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_")


def crawl_address(url: str) -> str:
    """`url` as a crawl records it: normalised (`normalise_url`), without tracking
    parameters, and without a trailing slash on any path but the root.

    The trailing slash is dropped because sites serve `/guide` and `/guide/` as one page
    (or redirect one to the other); a site that serves two different pages there is
    rare enough that fetching one of them is the better trade."""
    normal = normalise_url(url)
    parts = urlsplit(normal)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if not _tracking(k)]
    path = parts.path
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return urlunsplit((parts.scheme, parts.netloc, path, urlencode(query, doseq=True), ""))


def _tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMETERS or lowered.startswith(TRACKING_PREFIXES)


def absolute_link(href: str, base: str) -> str | None:
    """`href` resolved against `base` when it names an http(s) page, else None
    (`mailto:`, `javascript:`, `data:`, a bare fragment)."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    joined = urljoin(base, href)
    scheme = urlsplit(joined).scheme.lower()
    if scheme not in ("http", "https"):
        return None
    return joined.split("#", 1)[0]


def site_origin(url: str) -> str:
    """`scheme://host[:port]` of `url`, normalised."""
    parts = urlsplit(normalise_url(url))
    return f"{parts.scheme}://{parts.netloc}"
