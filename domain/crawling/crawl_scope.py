"""Which pages a crawl may visit: the start page's host or path prefix, patterns, and
its page and depth bounds."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal
from urllib.parse import urlsplit

import attrs

from ..errors import ErrorKind, SheafError
from .crawl_address import crawl_address

ScopeKind = Literal["host", "prefix"]
SCOPE_KINDS: tuple[ScopeKind, ...] = ("host", "prefix")
MAX_PAGES_LIMIT = 100_000
DEFAULT_MAX_PAGES = 100
DEFAULT_MAX_DEPTH = 5


@attrs.frozen
class CrawlScope:
    """The pages of one crawl.

    `host`: every page on the start page's host (scheme and port included); `prefix`:
    only those whose path starts with the start page's directory. `include` patterns
    (shell-style, matched against the whole URL) narrow it; `exclude` patterns remove
    from it. The start page is always in scope."""

    start: str = attrs.field(converter=crawl_address)
    kind: ScopeKind = "prefix"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_pages: int = DEFAULT_MAX_PAGES
    max_depth: int = DEFAULT_MAX_DEPTH

    def __attrs_post_init__(self) -> None:
        if self.kind not in SCOPE_KINDS:
            raise SheafError(ErrorKind.CONFIGURATION,
                             f"crawl scope must be one of {', '.join(SCOPE_KINDS)}, "
                             f"not {self.kind!r}")
        if not 1 <= self.max_pages <= MAX_PAGES_LIMIT:
            raise SheafError(ErrorKind.CONFIGURATION,
                             f"max pages must be between 1 and {MAX_PAGES_LIMIT}")
        if self.max_depth < 0:
            raise SheafError(ErrorKind.CONFIGURATION, "max depth must be 0 or more")

    @property
    def prefix(self) -> str:
        """The path every page of a `prefix` crawl starts with: the start page's
        directory (`/docs/` for `/docs/intro`; the page itself when it is a directory
        index the crawl address dropped the slash of is handled by also admitting
        `/docs/intro/...`)."""
        path = urlsplit(self.start).path
        return path[: path.rfind("/") + 1] or "/"

    def refusal(self, url: str) -> str | None:
        """Why `url` (a crawl address) is outside the crawl, or None when it is inside."""
        if url == self.start:
            return None
        start, parts = urlsplit(self.start), urlsplit(url)
        if (parts.scheme, parts.netloc) != (start.scheme, start.netloc):
            return f"another site ({parts.netloc})"
        if self.kind == "prefix" and not (parts.path.startswith(self.prefix)
                                          or parts.path.startswith(start.path + "/")):
            return f"outside {self.prefix}"
        if self.include and not any(fnmatchcase(url, p) for p in self.include):
            return "matches no include pattern"
        hit = next((p for p in self.exclude if fnmatchcase(url, p)), None)
        if hit is not None:
            return f"excluded by {hit}"
        return None
