"""The ports (typing.Protocol) the use cases depend on; adapters implement them."""

from sheaf.application.ports.html_extractor import HtmlExtractor
from sheaf.application.ports.http_client import HttpClient, HttpResponse
from sheaf.application.ports.pdf_extractor import PdfExtractor

__all__ = ["HtmlExtractor", "HttpClient", "HttpResponse", "PdfExtractor"]
