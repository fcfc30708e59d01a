"""The EPUB extractor: the package read with zipfile and a safe XML parser, chapters
through sheaf's HTML block builder.

Chapters come in spine order. Each chapter's whole body is turned into blocks (no
main-content selection: a book chapter has no boilerplate to find, and a heuristic
could drop a short chapter). The table of contents (EPUB 3 navigation document, else
the EPUB 2 NCX) names chapters: a chapter whose own first heading differs from its
table-of-contents label gets that label as its heading, its own headings one level
down. The book's metadata comes from the package document.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

import attrs
import html5lib

from ...domain.document.document import BlockDraft, BlockKind, Document, Link
from ...domain.document.link_list import with_link_list
from ...domain.document.markdown_rendering import assemble_document
from ...domain.document.metadata import DocumentMetadata
from ...domain.document.omissions import Omission, OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.figures import figure_drafts
from ...domain.office.zip_container import resolve_member
from ..html.block_builder import BlockBuilder, clean_inline
from .container_extractor import ContainerExtractor
from .container_reading import Container

OCF = "{urn:oasis:names:tc:opendocument:xmlns:container}"
OPF = "{http://www.idpf.org/2007/opf}"
DC = "{http://purl.org/dc/elements/1.1/}"
NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
CONTAINER_PART = "META-INF/container.xml"
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/html"})
_DOI = re.compile(r"\b10\.\d{4,9}/\S+")
_INLINE_PARENTS = frozenset({"p", "a", "span", "em", "strong", "i", "b", "u", "sup", "sub",
                             "small", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6",
                             "q", "cite", "label", "dt", "dd"})
_IN_BOOK = "file:///"
"""The base chapters' relative links are resolved against (a scheme `urljoin` resolves
paths under), so a link inside the book comes back as its member path."""
_MEDIA = frozenset({"video", "audio"})
_EMBEDDED = frozenset({"object", "embed", "iframe"})


@attrs.frozen
class _Item:
    path: str
    media_type: str
    properties: str


class EpubExtractor(ContainerExtractor):
    """Extracts an EPUB 2 or 3 book in a worker thread."""

    def read(self, container: Container, location: str) -> Document:
        return _book(container, location)


def _book(container: Container, location: str) -> Document:
    if not container.has(CONTAINER_PART):
        raise SheafError(ErrorKind.UNSUPPORTED_CONTENT,
                         f"a ZIP archive without {CONTAINER_PART}: not an EPUB book")
    rootfile = container.xml(CONTAINER_PART).find(f"{OCF}rootfiles/{OCF}rootfile")
    package_path = rootfile.get("full-path") if rootfile is not None else None
    if not package_path:
        raise SheafError(ErrorKind.CORRUPT, f"{CONTAINER_PART} names no package document")
    package_path = resolve_member("", package_path)
    package = container.xml(package_path)
    items = _manifest(package, package_path)
    toc = _table_of_contents(container, package, items)
    drafts: list[BlockDraft] = []
    links: list[Link] = []
    tally = OmissionTally()
    spine = package.find(OPF + "spine")
    read_chapters: set[str] = set()  # a chapter the spine lists again is read once
    for itemref in spine.findall(OPF + "itemref") if spine is not None else []:
        item = items.get(itemref.get("idref") or "")
        if item is None or item.media_type not in _CHAPTER_TYPES or "nav" in item.properties \
                or itemref.get("linear") == "no" or not container.has(item.path) \
                or item.path in read_chapters:
            continue
        read_chapters.add(item.path)
        builder = BlockBuilder(_IN_BOOK + item.path)
        body = _with_figures(_body(container.read(item.path)), tally)
        chapter = builder.build_all([body], drop_publisher_sections=False)
        drafts += container.budget.take(_titled(chapter, toc.get(item.path)), item.path)
        links += _book_links(builder.links)
    if not any(d.kind is not BlockKind.HEADING for d in drafts):
        raise SheafError(ErrorKind.EMPTY, "the book's chapters hold no text")
    metadata = _metadata(package)
    if metadata.title is None:
        first = next((d.text for d in drafts if d.kind is BlockKind.HEADING), None)
        metadata = attrs.evolve(metadata, title=first)
    drafts = with_link_list(drafts, links, container.budget)
    return assemble_document(drafts, metadata=metadata, links=links, notes=[tally.note()])


def _book_links(links: list[Link]) -> list[Link]:
    """The chapter's links, a link to another part of the book named by its member path
    ("OEBPS/text/colophon.xhtml"); a jump to a place inside a part (a note reference, a
    table-of-contents entry) is a cross-reference within the book, not a link kept."""
    kept = []
    for link in links:
        if link.url.startswith(_IN_BOOK):
            member = link.url[len(_IN_BOOK):]
            if "#" in member or not member:
                continue
            link = attrs.evolve(link, url=member)
        kept.append(link)
    return kept


def _with_figures(body: Element, tally: OmissionTally) -> Element:
    """The chapter with each described image replaced by its description: a figure
    caption where the image stands as a block, "[Figure: ...]" inside a line; images
    without a description, media and embedded objects counted as left out."""
    for parent in list(body.iter()):
        for index, child in enumerate(list(parent)):
            tag = child.tag if isinstance(child.tag, str) else ""
            local = tag.rsplit("}", 1)[-1].lower()
            if local in _MEDIA:
                tally.add(Omission.MEDIA)
                continue
            if local in _EMBEDDED:
                tally.add(Omission.EMBEDDED_OBJECT)
                continue
            if local not in ("img", "image", "svg"):
                continue
            title_element = next((e for e in child.iter() if isinstance(e.tag, str)
                                  and e.tag.rsplit("}", 1)[-1] == "title"), None)
            title = child.get("title") or (title_element.text if title_element is not None
                                           else None)
            figure = figure_drafts(child.get("alt") or child.get("aria-label"), title, tally)
            if not figure:
                parent.remove(child)
                _keep_tail(parent, index, child.tail)
                continue
            inline = parent.tag in _INLINE_PARENTS
            replacement = Element("span" if inline else "figcaption")
            replacement.text = f"[{figure[0].text}]" if inline else figure[0].text
            replacement.tail = child.tail
            parent.remove(child)
            parent.insert(index, replacement)
    return body


def _keep_tail(parent: Element, index: int, tail: str | None) -> None:
    """A removed element's tail text joins the text before it."""
    if not tail:
        return
    if index == 0:
        parent.text = (parent.text or "") + tail
    else:
        before = parent[index - 1]
        before.tail = (before.tail or "") + tail


def _manifest(package: Element, package_path: str) -> dict[str, _Item]:
    manifest = package.find(OPF + "manifest")
    items = {}
    for item in manifest.findall(OPF + "item") if manifest is not None else []:
        href, item_id = item.get("href"), item.get("id")
        if href and item_id:
            items[item_id] = _Item(resolve_member(package_path, href),
                                   (item.get("media-type") or "").lower(),
                                   item.get("properties") or "")
    return items


def _body(data: bytes) -> Element:
    # html5lib never expands DTD entities, so hostile XHTML cannot declare any.
    tree: Element = html5lib.parse(data, treebuilder="etree", namespaceHTMLElements=False,
                                   likely_encoding="utf-8")
    body = tree.find("body")
    return body if body is not None else tree


def _titled(chapter: list[BlockDraft], label: str | None) -> list[BlockDraft]:
    """The chapter headed by its table-of-contents label, unless it starts with it."""
    if not label:
        return chapter
    first = next((d for d in chapter[:3] if d.kind is BlockKind.HEADING), None)
    if first is not None and _comparable(first.text) == _comparable(label):
        return chapter
    shifted = [attrs.evolve(d, level=min(d.level + 1, 6)) if d.kind is BlockKind.HEADING else d
               for d in chapter]
    return [BlockDraft(BlockKind.HEADING, text=label, level=1), *shifted]


def _table_of_contents(container: Container, package: Element, items: dict[str, _Item]
                       ) -> dict[str, str]:
    """The first label the table of contents gives each chapter file."""
    labels: dict[str, str] = {}
    nav = next((i for i in items.values() if "nav" in i.properties.split()), None)
    if nav is not None and container.has(nav.path):
        tree = _body(container.read(nav.path))
        navs = [n for n in tree.iter("nav") if "toc" in (n.get("epub:type") or "").split()]
        for anchor in (navs[0] if navs else tree).iter("a"):
            href, text = anchor.get("href"), clean_inline("".join(anchor.itertext()))
            if href and text:
                labels.setdefault(resolve_member(nav.path, href), text)
        if labels:
            return labels
    spine = package.find(OPF + "spine")
    ncx = items.get(spine.get("toc") or "") if spine is not None else None
    if ncx is not None and container.has(ncx.path):
        for point in container.xml(ncx.path).iter(NCX + "navPoint"):
            text = clean_inline(point.findtext(f"{NCX}navLabel/{NCX}text") or "")
            content = point.find(NCX + "content")
            src = content.get("src") if content is not None else None
            if src and text:
                labels.setdefault(resolve_member(ncx.path, src), text)
    return labels


def _metadata(package: Element) -> DocumentMetadata:
    metadata = package.find(OPF + "metadata")
    if metadata is None:
        return DocumentMetadata()

    def texts(tag: str) -> list[str]:
        return [clean_inline(e.text or "") for e in metadata.findall(DC + tag)
                if clean_inline(e.text or "")]

    identifiers = " ".join(texts("identifier"))
    doi = _DOI.search(identifiers)
    dates = texts("date")
    return DocumentMetadata(
        title=next(iter(texts("title")), None), authors=tuple(texts("creator")),
        published=dates[0] if dates else None, language=next(iter(texts("language")), None),
        description=next(iter(texts("description")), None), keywords=tuple(texts("subject")),
        doi=doi.group(0) if doi else None, site_name=next(iter(texts("publisher")), None))


def _comparable(text: str) -> str:
    return " ".join(text.lower().split())
