"""Parsing a Content-Type header into its media type and charset."""

from __future__ import annotations

import attrs

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
EPUB_TYPE = "application/epub+zip"
ODT_TYPE = "application/vnd.oasis.opendocument.text"
ODS_TYPE = "application/vnd.oasis.opendocument.spreadsheet"
ODP_TYPE = "application/vnd.oasis.opendocument.presentation"
RTF_TYPE = "application/rtf"
EMAIL_TYPE = "message/rfc822"
MSG_TYPE = "application/vnd.ms-outlook"
XML_TYPES = frozenset({"application/xml", "text/xml"})
CSV_TYPE = "text/csv"
TSV_TYPE = "text/tab-separated-values"
IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg",
               b"II*\x00": "image/tiff", b"MM\x00*": "image/tiff"}
"""Magic bytes of the raster images sheaf reads by OCR, and their media types."""


@attrs.frozen
class MediaType:
    """A declared content type, lower-cased; `essence` is empty when none was sent."""

    essence: str
    charset: str | None = None

    @classmethod
    def parse(cls, header: str | None) -> MediaType:
        """Parse leniently: garbage yields an empty essence, never an exception."""
        if not header:
            return cls("")
        head, _, params = header.partition(";")
        essence = head.strip().lower()
        if "/" not in essence or " " in essence:
            essence = ""
        charset = None
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset":
                charset = value.strip().strip("\"'").lower() or None
        return cls(essence, charset)

    def __str__(self) -> str:
        return self.essence or "(none)"
