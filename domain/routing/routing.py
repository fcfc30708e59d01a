"""Deciding what a body is from what the server sent, never from the URL's extension."""

from __future__ import annotations

import re
from collections.abc import Collection

import attrs

from ..errors import ErrorKind
from ..worded_enum import WordedEnum
from .media_type import (
    CSV_TYPE,
    DOCX_TYPE,
    EPUB_TYPE,
    IMAGE_TYPES,
    PPTX_TYPE,
    TSV_TYPE,
    XLSX_TYPE,
    MediaType,
)

PDF_MAGIC = b"%PDF-"
PDF_JUNK_ALLOWANCE = 1024
"""Real files carry up to 1 KiB of junk before the header; readers accept it."""

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
RAW_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", "application/json"})
GENERIC_TYPES = frozenset(
    {"", "application/octet-stream", "binary/octet-stream", "application/x-unknown",
     "application/unknown", "application/download", "application/force-download",
     "text/plain"}
)

_HTML_START = re.compile(
    rb"^(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<meta[\s>]|<title[\s>])",
    re.IGNORECASE,
)
_SKIPPABLE = re.compile(rb"^(?:\s+|<!--.*?-->|<\?xml[^>]*\?>)", re.DOTALL)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
CONTAINER_TYPES = frozenset({DOCX_TYPE, PPTX_TYPE, XLSX_TYPE, EPUB_TYPE, "application/zip",
                             "application/x-zip-compressed"})
SUPPORTED = ("PDF, HTML, plain text, Markdown, JSON, CSV/TSV, DOCX, PPTX, XLSX, EPUB, "
             "PNG/JPEG/TIFF images (OCR)")
"""What sheaf reads, for refusals to name."""


class Route(WordedEnum):
    """Where a body goes next."""

    PDF = "pdf"
    HTML = "html"
    RAW = "raw"
    CONTAINER = "container"
    """A ZIP archive: its member names decide (`route_container`)."""
    DOCX = "docx"
    PPTX = "pptx"
    XLSX = "xlsx"
    EPUB = "epub"
    CSV = "csv"
    IMAGE = "image"


CONTAINER_MARKERS: tuple[tuple[str, Route, str], ...] = (
    ("word/document.xml", Route.DOCX, DOCX_TYPE),
    ("ppt/presentation.xml", Route.PPTX, PPTX_TYPE),
    ("xl/workbook.xml", Route.XLSX, XLSX_TYPE),
    ("META-INF/container.xml", Route.EPUB, EPUB_TYPE),
)
"""The member that makes a ZIP archive a given format, as the format's spec places it."""


@attrs.frozen
class RoutingDecision:
    """The route chosen (or the refusal) and the reason, for the decision log."""

    route: Route | None
    reason: str
    media_type: MediaType
    refusal: ErrorKind | None = None

    @property
    def refused(self) -> bool:
        return self.route is None


def has_pdf_magic(head: bytes) -> bool:
    """True when `%PDF-` starts within the first KiB."""
    return head.find(PDF_MAGIC, 0, PDF_JUNK_ALLOWANCE + len(PDF_MAGIC)) != -1


def looks_like_html(head: bytes) -> bool:
    """Sniff markup: BOM, whitespace, comments and an XML declaration may come first."""
    data = _decode_prefix(head[:4096])
    while True:
        match = _SKIPPABLE.match(data)
        if not match or match.end() == 0:
            break
        data = data[match.end():]
    return bool(_HTML_START.match(data))


def looks_like_text(head: bytes) -> bool:
    """No NUL bytes and decodable as UTF-8 (tolerating a cut multi-byte tail)."""
    sample = head[:4096]
    if b"\x00" in sample and not sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(sample) - 3
    return True


def image_type(head: bytes) -> str | None:
    """The media type of a PNG, JPEG or TIFF image from its magic bytes."""
    return next((kind for magic, kind in IMAGE_TYPES.items() if head.startswith(magic)), None)


def describe_content(head: bytes) -> str:
    """What the bytes are, in words, for refusals that must name what was found."""
    if not head:
        return "empty"
    if has_pdf_magic(head):
        return "a PDF"
    if head.startswith(ZIP_MAGICS):
        return "a ZIP archive"
    found_image = image_type(head)
    if found_image:
        return f"an image ({found_image})"
    if head.startswith(OLE2_MAGIC):
        return "an OLE2 compound file (a legacy .doc, .xls or .ppt)"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip stream"
    if head.startswith(b"\x7fELF"):
        return "an ELF executable"
    if looks_like_html(head):
        return "HTML"
    if looks_like_text(head):
        return "text"
    return "binary data"


def route_content(declared_type: str | None, head: bytes, url: str = "", *,
                  strict: bool = False) -> RoutingDecision:
    """Choose where a body goes from its declared type and its first bytes. Never raises.

    `url` is accepted for the decision log's sake only: the route depends on the
    declared type and the bytes, because extensions lie (a `.pdf` link that
    answers with a login page is the failure this exists to prevent). A web page
    declared as a PDF or an Office file is read as the HTML it is, unless `strict`
    (bytes in hand, whose declared type came from a file name): then it is refused.
    ZIP archives get `Route.CONTAINER`; `route_container` decides from their members.
    """
    media = MediaType.parse(declared_type)
    declared = str(media)
    if not head:
        return RoutingDecision(None, "empty body", media, ErrorKind.EMPTY)
    if has_pdf_magic(head):
        if media.essence == "application/pdf":
            return RoutingDecision(Route.PDF, "declared application/pdf and starts with %PDF-",
                                   media)
        return RoutingDecision(Route.PDF, f"body starts with %PDF- (declared {declared})", media)
    if head.startswith(ZIP_MAGICS):
        return RoutingDecision(Route.CONTAINER,
                               f"a ZIP archive (declared {declared}): its members decide", media)
    found_image = image_type(head)
    if found_image:
        return RoutingDecision(Route.IMAGE, f"{found_image} by its magic bytes "
                                            f"(declared {declared}): OCR", media)
    html = looks_like_html(head)
    if media.essence == "application/pdf" or media.essence.endswith("/x-pdf"):
        if html and not strict:
            return RoutingDecision(Route.HTML,
                                   f"declared {declared} but the body is HTML, not a PDF", media)
        return RoutingDecision(None, f"declared {declared} but the body is "
                                     f"{describe_content(head)}, with no %PDF- header",
                               media, ErrorKind.NOT_A_PDF)
    if media.essence in CONTAINER_TYPES or media.essence.startswith("image/"):
        if html and not strict:
            return RoutingDecision(Route.HTML, f"declared {declared} but the body is HTML",
                                   media)
        return RoutingDecision(None, f"declared {declared} but the body is "
                                     f"{describe_content(head)}", media,
                               ErrorKind.UNSUPPORTED_CONTENT)
    if media.essence in (CSV_TYPE, TSV_TYPE) and looks_like_text(head):
        return RoutingDecision(Route.CSV, f"declared {declared} and the body is text", media)
    if media.essence in HTML_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared}", media)
    if html and media.essence in GENERIC_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared} but the body sniffs as HTML",
                               media)
    if media.essence in RAW_TYPES or media.essence.endswith("+json"):
        return RoutingDecision(Route.RAW, f"declared {declared}: passed through as text", media)
    if media.essence in GENERIC_TYPES and looks_like_text(head):
        return RoutingDecision(Route.RAW, f"declared {declared} and the body is text", media)
    return RoutingDecision(None, f"unsupported content type {declared}: the body is "
                                 f"{describe_content(head)} (sheaf reads {SUPPORTED})", media,
                           ErrorKind.UNSUPPORTED_CONTENT)


def route_container(decision: RoutingDecision, members: Collection[str]) -> RoutingDecision:
    """Refine a `Route.CONTAINER` decision from the archive's member names: a DOCX is a ZIP
    with `word/document.xml`, whatever its name or declared type says."""
    names = set(members)
    for marker, route, media_type in CONTAINER_MARKERS:
        if marker in names:
            declared = decision.media_type.essence
            note = "" if declared in ("", media_type) else f" (declared {declared})"
            return RoutingDecision(route, f"a ZIP archive holding {marker}: "
                                          f"{route.value}{note}", decision.media_type)
    listed = ", ".join(sorted(names)[:5]) or "no members"
    wanted = ", ".join(marker for marker, _, _ in CONTAINER_MARKERS)
    return RoutingDecision(None, f"declared {decision.media_type} but the body is a ZIP archive "
                                 f"holding none of {wanted} (it holds {listed})",
                           decision.media_type, ErrorKind.UNSUPPORTED_CONTENT)


def _decode_prefix(head: bytes) -> bytes:
    """ASCII-compatible bytes of the prefix, so UTF-16 markup can be sniffed too."""
    for bom in _BOMS:
        if head.startswith(bom):
            if bom == b"\xef\xbb\xbf":
                return head[len(bom):]
            codec = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
            text = head[len(bom):].decode(codec, errors="ignore")
            return text.encode("ascii", errors="ignore")
    return head
