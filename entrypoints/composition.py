"""The composition root: real adapters wired into the use cases."""

from __future__ import annotations

from sheaf.adapters.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.html5lib_extractor import Html5libExtractor
from sheaf.adapters.http_settings import HttpSettings
from sheaf.adapters.pdfminer_extractor import PdfminerExtractor
from sheaf.application.content_resolver import ContentResolver
from sheaf.application.document_extraction import DocumentExtraction


def build_resolver(settings: HttpSettings) -> tuple[AiohttpHttpClient, ContentResolver]:
    """A resolver over aiohttp, html5lib and pdfminer; close the client when done."""
    client = AiohttpHttpClient(settings)
    return client, ContentResolver(client, Html5libExtractor(), PdfminerExtractor())


def build_extraction() -> DocumentExtraction:
    return DocumentExtraction(Html5libExtractor(), PdfminerExtractor())
