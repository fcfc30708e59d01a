"""The link reader port over the same html5lib parse the extractor uses."""

from __future__ import annotations

from ...application.ports.link_reader import PageLinks
from ...domain.crawling.crawl_address import absolute_link
from .document_parsing import parse_document

_LINK_RELS = frozenset({"next", "prev", "previous"})
_ROBOTS_NAMES = frozenset({"robots", "sheaf"})


class Html5libLinkReader:
    """Every `<a href>`, `<area href>` and page-to-page `<link>` of a page. Links marked
    `rel="nofollow"` are left out: the site asks crawlers not to follow them."""

    def read(self, body: bytes, *, url: str, charset: str | None = None) -> PageLinks:
        root = parse_document(body, charset)
        base = url
        nofollow = noindex = False
        hrefs: list[str] = []
        for element in root.iter():
            tag = element.tag
            if not isinstance(tag, str):
                continue
            name = tag.rpartition("}")[2]
            if name == "base" and element.get("href") and base == url:
                base = absolute_link(element.get("href", ""), url) or url
            elif name == "meta" and (element.get("name") or "").lower() in _ROBOTS_NAMES:
                content = {w.strip() for w in (element.get("content") or "").lower().split(",")}
                nofollow = nofollow or bool(content & {"nofollow", "none"})
                noindex = noindex or bool(content & {"noindex", "none"})
            elif name in ("a", "area") and element.get("href") is not None:
                if "nofollow" not in (element.get("rel") or "").lower().split():
                    hrefs.append(element.get("href", ""))
            elif name == "link" and element.get("href") is not None:
                rels = set((element.get("rel") or "").lower().split())
                if rels & _LINK_RELS:
                    hrefs.append(element.get("href", ""))
        seen: dict[str, None] = {}
        for href in hrefs:
            link = absolute_link(href, base)
            if link is not None:
                seen.setdefault(link)
        return PageLinks(tuple(seen), nofollow=nofollow, noindex=noindex)
