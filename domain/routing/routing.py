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
    EMAIL_TYPE,
    EPUB_TYPE,
    IMAGE_TYPES,
    MSG_TYPE,
    ODP_TYPE,
    ODS_TYPE,
    ODT_TYPE,
    PPTX_TYPE,
    RTF_TYPE,
    TSV_TYPE,
    XLSX_TYPE,
    XML_TYPES,
    MediaType,
)

PDF_MAGIC = b"%PDF-"
PDF_JUNK_ALLOWANCE = 1024
"""Real files carry up to 1 KiB of junk before the header; readers accept it."""
_PDF_HEADER = re.compile(rb"%PDF-[0-9]\.[0-9]")

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
_DOCTYPE = re.compile(rb"^<!DOCTYPE[^>\[]*(?:\[[^\]]*\])?\s*>", re.IGNORECASE)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
CONTAINER_TYPES = frozenset({DOCX_TYPE, PPTX_TYPE, XLSX_TYPE, EPUB_TYPE, ODT_TYPE, ODS_TYPE,
                             ODP_TYPE, "application/zip", "application/x-zip-compressed"})
SUPPORTED = ("PDF, HTML, plain text, Markdown, JSON, CSV/TSV, DOCX, PPTX, XLSX, EPUB, "
             "OpenDocument (ODT, ODS, ODP), RTF, email (EML), PNG/JPEG/TIFF images (OCR)")
_RTF_START = re.compile(rb"^\s*\{\\rtf", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"^([A-Za-z][A-Za-z0-9-]{0,40}):[ \t]*\S?")
_MAIL_MARKERS = frozenset({b"message-id", b"mime-version", b"received", b"return-path",
                           b"delivered-to", b"x-mailer", b"dkim-signature"})
_XML_START = re.compile(rb"^<([A-Za-z_][\w.:-]*)")
_MSG_MARKERS = ("__substg1.0_".encode("utf-16-le"), "__nameid_version1.0".encode("utf-16-le"),
                "__properties_version1.0".encode("utf-16-le"))
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
    ODF = "odf"
    """OpenDocument text, spreadsheet or presentation."""
    RTF = "rtf"
    EMAIL = "email"
    CSV = "csv"
    IMAGE = "image"


CONTAINER_MARKERS: tuple[tuple[str, Route, str], ...] = (
    ("word/document.xml", Route.DOCX, DOCX_TYPE),
    ("ppt/presentation.xml", Route.PPTX, PPTX_TYPE),
    ("xl/workbook.xml", Route.XLSX, XLSX_TYPE),
    ("META-INF/container.xml", Route.EPUB, EPUB_TYPE),
    ("content.xml", Route.ODF, ODT_TYPE),
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
    """True when a PDF header, `%PDF-` and its version (`1.7`, `2.0`), starts within the
    first KiB. The version is required: text that names the header (a Markdown note on
    PDFs, a code sample) is not a PDF for mentioning `%PDF-`."""
    return _PDF_HEADER.search(head, 0, PDF_JUNK_ALLOWANCE + len(PDF_MAGIC) + 3) is not None


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
        if is_outlook_message(head):
            return "an Outlook MSG message (OLE2)"
        return "an OLE2 compound file (a legacy .doc, .xls or .ppt)"
    if looks_like_rtf(head):
        return "RTF"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip stream"
    if head.startswith(b"\x7fELF"):
        return "an ELF executable"
    if looks_like_html(head):
        return "HTML"
    root = xml_root(head)
    if root is not None:
        return f"XML (root element <{root}>)"
    if looks_like_text(head):
        return "text"
    return "binary data"


def is_outlook_message(head: bytes) -> bool:
    """An OLE2 file whose directory names the streams of an Outlook message."""
    return head.startswith(OLE2_MAGIC) and any(m in head for m in _MSG_MARKERS)


def looks_like_rtf(head: bytes) -> bool:
    return bool(_RTF_START.match(_decode_prefix(head[:64])))


def looks_like_email(head: bytes) -> bool:
    """An RFC 5322 message: a block of header lines with a From: header and either a
    header only mail carries (Message-ID, MIME-Version, Received, ...) or the To:,
    Subject: and Date: a sent message has."""
    names: set[bytes] = set()
    for line in head[:4096].splitlines():
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t"):
            continue  # a folded header's continuation
        match = _HEADER_LINE.match(line)
        if not match:
            return False
        names.add(match.group(1).lower())
    if b"from" not in names:
        return False
    return bool(names & _MAIL_MARKERS) or {b"to", b"subject", b"date"} <= names


def xml_root(head: bytes) -> str | None:
    """The root element's name of bytes that are XML (and not HTML), else None."""
    data = _decode_prefix(head[:4096])
    while True:
        match = _SKIPPABLE.match(data) or _DOCTYPE.match(data)
        if not match or match.end() == 0:
            break
        data = data[match.end():]
    found = _XML_START.match(data)
    if found is None or not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return None
    return found.group(1).decode("ascii", "replace")


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
    if is_outlook_message(head) or (media.essence == MSG_TYPE
                                    and head.startswith(OLE2_MAGIC)):
        return RoutingDecision(None, f"an Outlook MSG message (declared {declared}): sheaf "
                                     "does not read Outlook MSG files; save the message as "
                                     ".eml to ingest it", media, ErrorKind.UNSUPPORTED_CONTENT)
    if looks_like_rtf(head):
        return RoutingDecision(Route.RTF, f"RTF by its {{\\rtf header (declared {declared})",
                               media)
    html = looks_like_html(head)
    if media.essence == "application/pdf" or media.essence.endswith("/x-pdf"):
        if html and not strict:
            return RoutingDecision(Route.HTML,
                                   f"declared {declared} but the body is HTML, not a PDF", media)
        return RoutingDecision(None, f"declared {declared} but the body is "
                                     f"{describe_content(head)}, with no %PDF- header",
                               media, ErrorKind.NOT_A_PDF)
    if media.essence in CONTAINER_TYPES or media.essence.startswith("image/") \
            or media.essence in (RTF_TYPE, "text/rtf"):
        if html and not strict:
            return RoutingDecision(Route.HTML, f"declared {declared} but the body is HTML",
                                   media)
        return RoutingDecision(None, f"declared {declared} but the body is "
                                     f"{describe_content(head)}", media,
                               ErrorKind.UNSUPPORTED_CONTENT)
    if not html and (media.essence == EMAIL_TYPE or (
            media.essence in GENERIC_TYPES | {"message/rfc822"} and looks_like_email(head))):
        return RoutingDecision(Route.EMAIL, f"an email message by its headers "
                                            f"(declared {declared})", media)
    root = None if html else xml_root(head)
    if root is not None and media.essence != "text/plain" \
            and (media.essence in GENERIC_TYPES or media.essence in XML_TYPES
                 or media.essence.endswith("+xml")):
        return RoutingDecision(None, f"XML (root element <{root}>, declared {declared}): "
                                     "sheaf reads XML as text only when asked, as text/plain "
                                     "(a .txt name or a text/plain answer)", media,
                               ErrorKind.UNSUPPORTED_CONTENT)
    if media.essence in (CSV_TYPE, TSV_TYPE) and looks_like_text(head):
        return RoutingDecision(Route.CSV, f"declared {declared} and the body is text", media)
    if media.essence in HTML_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared}", media)
    if html and media.essence in GENERIC_TYPES:
        return RoutingDecision(Route.HTML, f"declared {declared} but the body sniffs as HTML",
                               media)
    if media.essence in RAW_TYPES or media.essence.endswith("+json"):
        reason = f"declared {declared}: passed through as text"
        if root is not None:
            reason = f"XML (root element <{root}>) declared {declared}: read as text, as asked"
        return RoutingDecision(Route.RAW, reason, media)
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
