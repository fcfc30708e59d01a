"""Deciding what a body is from what the server sent, never from the URL's extension."""

from __future__ import annotations

import enum
import re

import attrs

from sheaf.domain.errors import ErrorKind
from sheaf.domain.media_type import MediaType

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


class Route(enum.Enum):
    """Where a body goes next."""

    PDF = "pdf"
    HTML = "html"
    RAW = "raw"


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


def route_content(declared_type: str | None, head: bytes, url: str = "") -> RoutingDecision:
    """Choose PDF, HTML or raw text for a body. Never raises.

    `url` is accepted for the decision log's sake only: the route depends on the
    declared type and the bytes, because extensions lie (a `.pdf` link that
    answers with a login page is the failure this exists to prevent).
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
    html = looks_like_html(head)
    if media.essence == "application/pdf" or media.essence.endswith("/x-pdf"):
        if html:
            return RoutingDecision(Route.HTML,
                                   f"declared {declared} but the body is HTML, not a PDF", media)
        return RoutingDecision(None, f"declared {declared} but the body has no %PDF- header",
                               media, ErrorKind.NOT_A_PDF)
    if media.essence in HTML_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared}", media)
    if html and media.essence in GENERIC_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared} but the body sniffs as HTML",
                               media)
    if media.essence in RAW_TYPES or media.essence.endswith("+json"):
        return RoutingDecision(Route.RAW, f"declared {declared}: passed through as text", media)
    if media.essence in GENERIC_TYPES and looks_like_text(head):
        return RoutingDecision(Route.RAW, f"declared {declared} and the body is text", media)
    return RoutingDecision(None, f"unsupported content type {declared}", media,
                           ErrorKind.UNSUPPORTED_CONTENT)


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
