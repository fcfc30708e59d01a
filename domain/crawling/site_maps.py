"""Sitemaps (sitemaps.org) and `llms.txt` files: the pages a site lists for crawlers."""

from __future__ import annotations

import html
import re

import attrs

from .crawl_address import absolute_link

SITEMAP_MAX_URLS = 50_000
"""The protocol's own limit per sitemap file."""

_LOC = re.compile(r"<(?:[\w.-]+:)?loc\b[^>]*>\s*(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?\s*"
                  r"</(?:[\w.-]+:)?loc\s*>", re.IGNORECASE | re.DOTALL)
_INDEX = re.compile(r"<(?:[\w.-]+:)?sitemapindex\b", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_BARE_URL = re.compile(r"(?<![(<\w])https?://[^\s)>\]\"']+")


@attrs.frozen
class SiteMap:
    """One sitemap file: the pages it lists, or (for a sitemap index) more sitemaps."""

    pages: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()


def parse_sitemap(text: str, base: str) -> SiteMap:
    """The `<loc>` entries of a sitemap or sitemap index.

    Read by pattern rather than by an XML parser: a sitemap's only content that matters
    is its `<loc>` text, and reading it this way needs no DTD or entity handling, so a
    hostile sitemap cannot expand entities or fetch anything."""
    found: list[str] = []
    for match in _LOC.finditer(text):
        url = absolute_link(html.unescape(match.group(1)).strip(), base)
        if url is not None:
            found.append(url)
        if len(found) >= SITEMAP_MAX_URLS:
            break
    if _INDEX.search(text):
        return SiteMap(sitemaps=tuple(found))
    return SiteMap(pages=tuple(found))


def parse_llms_txt(text: str, base: str) -> tuple[str, ...]:
    """The pages an `llms.txt` (or `llms-full.txt`) links: its Markdown links, and bare
    URLs, in order, each once."""
    seen: dict[str, None] = {}
    for match in _MARKDOWN_LINK.finditer(text):
        url = absolute_link(match.group(1), base)
        if url is not None:
            seen.setdefault(url)
    for match in _BARE_URL.finditer(text):
        url = absolute_link(match.group(0).rstrip(".,;:"), base)
        if url is not None:
            seen.setdefault(url)
    return tuple(seen)
