"""The ports (typing.Protocol) the use cases depend on; adapters implement them."""

from .html_extractor import HtmlExtractor
from .http_client import HttpClient, HttpResponse
from .pdf_extractor import PdfExtractor

__all__ = ["HtmlExtractor", "HttpClient", "HttpResponse", "PdfExtractor"]
