"""Reading a page's metadata: citation_* and Dublin Core tags, Open Graph, JSON-LD, <title>."""

from __future__ import annotations

import contextlib
import html as html_lib
import json
import re
from typing import Any
from urllib.parse import urljoin
from xml.etree.ElementTree import Element

import html5lib

from ...domain.document.document import Link
from ...domain.document.metadata import DocumentMetadata
from .block_builder import clean_inline

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_DOI_LINK = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.IGNORECASE)
TITLE_SEPARATORS = re.compile(r"\s+[|\u2013\u2014\-:·•»]\s+")
"""What sites put between a story's title and their own name in <title>."""


def read_metadata(html: Element, page_url: str, article_h1: str | None) -> tuple[
        DocumentMetadata, list[Link], list[dict[str, Any]]]:
    """Metadata of the page, the links its head declares (alternate PDFs, canonical) and
    its JSON-LD items, flattened (parsed once here; `structured_article_body` reads
    them too)."""
    metas: dict[str, list[str]] = {}
    links: list[Link] = []
    title_tag: str | None = None
    language = html.get("lang") or html.get("xml:lang")
    json_ld: list[Any] = []
    doi_links: list[str] = []
    for element in html.iter():
        tag = element.tag
        if tag == "meta":
            key = (element.get("name") or element.get("property") or element.get("itemprop")
                   or "").strip().lower()
            content = element.get("content")
            if key and content and content.strip():
                metas.setdefault(key, []).append(clean_inline(content))
        elif tag == "link":
            href = element.get("href")
            if href:
                links.append(Link(text="", url=urljoin(page_url, href),
                                  rel=(element.get("rel") or "").lower() or None,
                                  media_type=(element.get("type") or "").lower() or None))
        elif tag == "title" and title_tag is None:
            title_tag = clean_inline("".join(element.itertext()))
        elif tag == "script" and (element.get("type") or "").lower() == "application/ld+json":
            json_ld.extend(_json_ld(element))
        elif tag == "a":
            match = _DOI_LINK.match((element.get("href") or "").strip())
            if match:
                doi_links.append(match.group(1))

    def first(*keys: str) -> str | None:
        return next((metas[k][0] for k in keys if k in metas), None)

    ld = _flatten_ld(json_ld)
    site_name = first("og:site_name", "citation_journal_title")
    title = plain_title(first("citation_title", "dc.title", "og:title")
                        or _ld_text(ld, "headline", "name") or article_h1
                        or _clean_title(title_tag, site_name))
    authors = tuple(metas.get("citation_author") or metas.get("dc.creator")
                    or _ld_authors(ld) or metas.get("author") or ())
    doi = _doi(first("citation_doi", "dc.identifier", "prism.doi", "bepress_citation_doi")
               or _ld_text(ld, "doi") or _ld_doi(ld)
               or (doi_links[0] if doi_links else None))
    canonical = next((lk.url for lk in links if lk.rel and "canonical" in lk.rel.split()), None)
    metadata = DocumentMetadata(
        title=title,
        authors=authors,
        doi=doi,
        citation_pdf_url=_absolute(page_url, first("citation_pdf_url")),
        journal=first("citation_journal_title", "prism.publicationname", "dc.source"),
        published=first("citation_publication_date", "citation_date", "citation_online_date",
                        "dc.date", "article:published_time", "datepublished")
        or _ld_text(ld, "datePublished"),
        abstract=first("citation_abstract", "dc.description.abstract"),
        language=language or first("citation_language", "dc.language", "og:locale"),
        canonical_url=canonical or first("og:url"),
        description=first("description", "og:description", "dc.description",
                          "twitter:description"),
        keywords=_keywords(metas),
        site_name=first("og:site_name"),
    )
    return metadata, links, ld


def _absolute(base: str, url: str | None) -> str | None:
    return urljoin(base, url) if url else None


def _doi(value: str | None) -> str | None:
    if not value:
        return None
    match = _DOI.search(value)
    return match.group(1).rstrip(".,;") if match else None


def _keywords(metas: dict[str, list[str]]) -> tuple[str, ...]:
    found: list[str] = []
    for key in ("citation_keywords", "keywords", "dc.subject", "article:tag"):
        for value in metas.get(key, []):
            found.extend(k.strip() for k in re.split(r"[;,]", value) if k.strip())
    return tuple(dict.fromkeys(found))


_MARKUP_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")


def plain_title(title: str | None) -> str | None:
    """A title as a reader sees it: publishers write markup into their citation_title
    ("<i>Aeschynomene americana</i> L."), escaped in the attribute, which the parser
    turns back into tags in the text. Tags go, entities are decoded."""
    if not title or ("<" not in title and "&" not in title):
        return title
    plain = clean_inline(html_lib.unescape(_MARKUP_TAG.sub("", title)))
    return plain or None


def _clean_title(title: str | None, site_name: str | None) -> str | None:
    if not title:
        return None
    parts = TITLE_SEPARATORS.split(title)
    if len(parts) > 1:
        if site_name:
            parts = [p for p in parts if p.strip().lower() != site_name.strip().lower()] or parts
        return max(parts, key=len).strip()
    return title


def _json_ld(script: Element) -> list[Any]:
    """The JSON value of a JSON-LD script, or nothing when it does not parse (broken, or
    nested too deep for the decoder: a RecursionError is the decoder's depth limit)."""
    with contextlib.suppress(ValueError, RecursionError):
        return [json.loads("".join(script.itertext()))]
    return []


STRUCTURED_BODY_KEYS = ("articleBody", "text")


def structured_article_body(ld: list[dict[str, Any]]) -> str | None:
    """The longest article body a page declares in JSON-LD (`articleBody`, or `text` of an
    article item; `ld` as `read_metadata` returns it), as plain text; None when there is
    none."""
    bodies = [item.get(key) for item in _ld_articles(ld) for key in STRUCTURED_BODY_KEYS]
    texts = [b for b in bodies if isinstance(b, str) and b.strip()]
    if not texts:
        return None
    best = max(texts, key=len)
    if "<" in best:  # some CMSs put the body's HTML there
        fragment = html5lib.parseFragment(best, treebuilder="etree",
                                          namespaceHTMLElements=False)
        best = "\n".join(t for t in fragment.itertext())
    return best


def _flatten_ld(items: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = list(items)
    while stack:
        item = stack.pop(0)
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            out.append(item)
            graph = item.get("@graph")
            if isinstance(graph, list):
                stack.extend(graph)
    return out


_ARTICLE_TYPES = ("article", "newsarticle", "scholarlyarticle", "blogposting", "report",
                  "medicalscholarlyarticle", "techarticle", "webpage")


def _ld_articles(ld: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def kind(item: dict[str, Any]) -> str:
        value = item.get("@type")
        return " ".join(value).lower() if isinstance(value, list) else str(value or "").lower()

    return [i for i in ld if any(t in kind(i) for t in _ARTICLE_TYPES)]


def _ld_text(ld: list[dict[str, Any]], *keys: str) -> str | None:
    for item in _ld_articles(ld):
        for key in keys:
            value = item.get(key)
            if isinstance(value, str) and value.strip():
                return clean_inline(value)
    return None


def _ld_authors(ld: list[dict[str, Any]]) -> list[str]:
    for item in _ld_articles(ld):
        value = item.get("author")
        people = value if isinstance(value, list) else [value]
        names = [p.get("name") if isinstance(p, dict) else p for p in people]
        found = [clean_inline(n) for n in names if isinstance(n, str) and n.strip()]
        if found:
            return found
    return []


def _ld_doi(ld: list[dict[str, Any]]) -> str | None:
    for item in _ld_articles(ld):
        for key in ("identifier", "sameAs", "@id", "url"):
            value = item.get(key)
            values = value if isinstance(value, list) else [value]
            for v in values:
                text = v.get("value") if isinstance(v, dict) else v
                if isinstance(text, str) and _DOI.search(text):
                    return text
    return None
