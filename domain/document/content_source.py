"""Which extraction path produced a document's text: its own module, so a command that
only names the kinds (`sheaf space --help`, `sheaf list`) does not import the document
model that `resolved_content` holds."""

from __future__ import annotations

from ..worded_enum import WordedEnum


class ContentSource(WordedEnum):
    """Which extraction path produced the text."""

    PDF = "pdf"
    HTML = "html"
    RAW = "raw"
    DOCX = "docx"
    PPTX = "pptx"
    SPREADSHEET = "spreadsheet"
    """XLSX workbooks and CSV/TSV files."""
    EPUB = "epub"
    OPENDOCUMENT = "opendocument"
    """ODT, ODS and ODP files."""
    RTF = "rtf"
    EMAIL = "email"
    OCR = "ocr"
    """Text recognised in images and scanned PDF pages."""
