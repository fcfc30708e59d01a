"""ContentResolver scenarios with the fake HTTP client and fake extractors."""

from __future__ import annotations

import pytest

from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.domain.document.document import BlockDraft, BlockKind, Document, Link
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.document.metadata import DocumentMetadata
from sheaf.domain.document.resolved_content import ContentSource
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.fetching.accept_policy import PDF_FIRST

pytestmark = pytest.mark.anyio
ARTICLE = "https://journal.example/articles/10.1234-abcd"
PDF_URL = "https://journal.example/articles/10.1234-abcd.pdf"
PDF_BYTES = b"%PDF-1.7\n% fake but magic\n"


def _document(words: int, *, headings: tuple[str, ...] = (), pdf_url: str | None = PDF_URL,
              doi: str | None = "10.1234/abcd", links: tuple[Link, ...] = ()) -> Document:
    drafts = [BlockDraft(BlockKind.HEADING, text="A study of things", level=1)]
    for heading in headings:
        drafts.append(BlockDraft(BlockKind.HEADING, text=heading, level=2))
        drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=" ".join(["word"] * (words // max(
            1, len(headings))))))
    if not headings:
        drafts.append(BlockDraft(BlockKind.PARAGRAPH, text=" ".join(["word"] * words)))
    metadata = DocumentMetadata(title="A study of things", doi=doi, citation_pdf_url=pdf_url)
    return assemble_document(drafts, metadata=metadata, links=links)


def _pdf_document() -> Document:
    return assemble_document(
        [BlockDraft(BlockKind.HEADING, text="1 Introduction", level=2),
         BlockDraft(BlockKind.PARAGRAPH, text="The full paper text " * 300)],
        metadata=DocumentMetadata(title=None, authors=("A. Author",)))


class World:
    def __init__(self) -> None:
        self.http = MemoryHttpClient(HttpSettings(allow_private_network=True))
        self.html = MemoryHtmlExtractor()
        self.pdf = MemoryPdfExtractor()
        self.resolver = ContentResolver(self.http, self.html, self.pdf)

    def page(self, url: str, body: str, document: Document) -> None:
        self.http.add(url, body, content_type="text/html; charset=utf-8")
        self.html.add(body, document)


@pytest.fixture
def world() -> World:
    return World()


async def test_full_text_page_whose_pdf_link_answers_html_keeps_the_html(world: World) -> None:
    world.page(ARTICLE, "<html>full article</html>",
               _document(3000, headings=("Introduction", "Methods", "Results", "Discussion")))
    world.http.add(PDF_URL, "<html>Log in to read</html>", content_type="text/html")
    result = await world.resolver.resolve(ARTICLE, prefer="pdf")
    assert result.source is ContentSource.HTML
    messages = " | ".join(result.diagnostics.messages())
    assert "PDF link returned 200 text/html: not a PDF (paywall?)" in messages
    assert result.final_url == ARTICLE and result.title == "A study of things"


async def test_auto_keeps_full_text_html_without_fetching_the_pdf(world: World) -> None:
    world.page(ARTICLE, "<html>full article</html>",
               _document(3000, headings=("Introduction", "Methods", "Results")))
    world.http.add(PDF_URL, PDF_BYTES, content_type="application/pdf")
    world.pdf.add(PDF_BYTES, _pdf_document())
    result = await world.resolver.resolve(ARTICLE)
    assert result.source is ContentSource.HTML
    assert [r.url for r in world.http.requests] == [ARTICLE]
    assert any("full-text HTML kept" in m for m in result.diagnostics.messages())


async def test_abstract_page_with_a_real_pdf_uses_the_pdf(world: World) -> None:
    world.page(ARTICLE, "<html>abstract only</html>", _document(250, headings=("Abstract",)))
    world.http.add(PDF_URL, PDF_BYTES, content_type="application/pdf")
    world.pdf.add(PDF_BYTES, _pdf_document())
    result = await world.resolver.resolve(ARTICLE)
    assert result.source is ContentSource.PDF
    assert result.text.startswith("## 1 Introduction")
    assert result.content_url == PDF_URL and result.final_url == ARTICLE
    assert result.metadata.title == "A study of things"  # from the page
    assert result.metadata.authors == ("A. Author",)  # from the PDF
    assert world.http.requests[1].accept == PDF_FIRST
    assert any("HTML is not the full text" in m for m in result.diagnostics.messages())


async def test_abstract_page_whose_pdf_is_paywalled_keeps_the_abstract(world: World) -> None:
    world.page(ARTICLE, "<html>abstract only</html>", _document(250, headings=("Abstract",)))
    world.http.add(PDF_URL, "<html>Buy this article</html>", status=200,
                   content_type="application/pdf")
    result = await world.resolver.resolve(ARTICLE)
    assert result.source is ContentSource.HTML
    messages = result.diagnostics.messages()
    assert any("not a PDF (paywall?)" in m for m in messages)
    assert any("kept the HTML text" in m for m in messages)


async def test_pdf_link_answering_403_is_logged(world: World) -> None:
    world.page(ARTICLE, "<html>abstract</html>", _document(250))
    world.http.add(PDF_URL, "denied", status=403, content_type="text/html")
    result = await world.resolver.resolve(ARTICLE)
    assert result.source is ContentSource.HTML
    assert any("PDF link returned 403" in m for m in result.diagnostics.messages())


async def test_prefer_html_never_fetches_the_pdf(world: World) -> None:
    world.page(ARTICLE, "<html>abstract</html>", _document(250))
    result = await world.resolver.resolve(ARTICLE, prefer="html")
    assert result.source is ContentSource.HTML and len(world.http.requests) == 1


async def test_declared_pdf_that_is_html_is_routed_as_html(world: World) -> None:
    url = "https://journal.example/download/paper.pdf"
    world.http.add(url, "<!DOCTYPE html><html>Sign in</html>", content_type="application/pdf")
    world.html.add("<!DOCTYPE html><html>Sign in</html>", _document(400, pdf_url=None))
    result = await world.resolver.resolve(url)
    assert result.source is ContentSource.HTML
    assert any("declared application/pdf but the body is HTML" in m
               for m in result.diagnostics.messages())


async def test_direct_pdf(world: World) -> None:
    url = "https://arxiv.org/pdf/2101.00001"
    world.http.add(url, PDF_BYTES, content_type="application/pdf")
    world.pdf.add(PDF_BYTES, _pdf_document())
    result = await world.resolver.resolve(url)
    assert result.source is ContentSource.PDF and result.content_type == "application/pdf"
    assert world.http.requests[0].accept == PDF_FIRST
    import hashlib
    assert result.sha256 == hashlib.sha256(PDF_BYTES).hexdigest()


async def test_pdf_with_a_generic_type_is_sniffed(world: World) -> None:
    url = "https://files.example/get?id=7"
    world.http.add(url, b"\n\r" + PDF_BYTES, content_type="application/octet-stream")
    world.pdf.add(b"\n\r" + PDF_BYTES, _pdf_document())
    assert (await world.resolver.resolve(url)).source is ContentSource.PDF


async def test_github_blob_is_fetched_from_the_raw_host(world: World) -> None:
    raw = "https://raw.githubusercontent.com/owner/repo/main/docs/guide.md"
    world.http.add(raw, "# Guide\n\nUse it well.\n", content_type="text/plain; charset=utf-8")
    result = await world.resolver.resolve("https://github.com/owner/repo/blob/main/docs/guide.md")
    assert world.http.requests[0].url == raw
    assert result.source is ContentSource.RAW
    assert result.original_url == "https://github.com/owner/repo/blob/main/docs/guide.md"
    assert result.normalised_url == raw
    assert "Use it well." in result.text


async def test_text_plain_is_raw(world: World) -> None:
    url = "https://example.org/notes.txt"
    world.http.add(url, "first paragraph\n\nsecond paragraph", content_type="text/plain")
    result = await world.resolver.resolve(url)
    assert result.source is ContentSource.RAW
    assert result.text == "first paragraph\n\nsecond paragraph"
    assert [b.kind for b in result.document.blocks] == [BlockKind.PARAGRAPH] * 2


async def test_json_is_pretty_printed(world: World) -> None:
    url = "https://api.example/item"
    world.http.add(url, '{"b":1,"a":[1,2]}', content_type="application/json")
    result = await world.resolver.resolve(url)
    assert '"a": [\n' in result.text


async def test_empty_body_is_empty(world: World) -> None:
    url = "https://example.org/empty"
    world.http.add(url, b"", content_type="text/html")
    with pytest.raises(SheafError) as caught:
        await world.resolver.resolve(url)
    assert caught.value.kind is ErrorKind.EMPTY and caught.value.url == url


@pytest.mark.parametrize(("status", "kind"), [
    (404, ErrorKind.NOT_FOUND), (410, ErrorKind.GONE), (403, ErrorKind.FORBIDDEN_OR_PAYWALLED),
    (401, ErrorKind.FORBIDDEN_OR_PAYWALLED), (429, ErrorKind.RATE_LIMITED),
    (500, ErrorKind.SERVER_ERROR), (503, ErrorKind.SERVER_ERROR), (418, ErrorKind.HTTP_ERROR),
])
async def test_statuses_become_typed_errors(world: World, status: int, kind: ErrorKind) -> None:
    url = "https://example.org/status"
    world.http.add(url, "x", status=status, content_type="text/plain",
                   headers={"Retry-After": "120"})
    with pytest.raises(SheafError) as caught:
        await world.resolver.resolve(url)
    assert caught.value.kind is kind and caught.value.status == status
    assert caught.value.url == url
    if kind is ErrorKind.RATE_LIMITED:
        assert caught.value.retry_after == 120


async def test_unsupported_content_names_the_type(world: World) -> None:
    url = "https://example.org/picture"
    world.http.add(url, b"\x89PNG\r\n\x1a\n", content_type="image/png")
    with pytest.raises(SheafError) as caught:
        await world.resolver.resolve(url)
    assert caught.value.kind is ErrorKind.UNSUPPORTED_CONTENT
    assert "image/png" in caught.value.message


async def test_page_without_main_content_and_without_pdf_is_empty(world: World) -> None:
    url = "https://example.org/cookie-wall"
    world.http.add(url, "<html>cookies</html>", content_type="text/html")
    with pytest.raises(SheafError) as caught:
        await world.resolver.resolve(url)
    assert caught.value.kind is ErrorKind.EMPTY


async def test_weak_pdf_links_are_ignored_on_pages_that_are_not_scholarly(world: World) -> None:
    url = "https://blog.example/post"
    brochure = Link(text="Download PDF", url="/files/whitepaper.pdf")
    world.page(url, "<html>short post</html>",
               _document(300, pdf_url=None, doi=None, links=(brochure,)))
    result = await world.resolver.resolve(url)
    assert result.source is ContentSource.HTML and len(world.http.requests) == 1


async def test_arxiv_abstract_page_uses_the_pdf(world: World) -> None:
    url = "https://arxiv.org/abs/2101.00001"
    world.page(url, "<html>arxiv abstract</html>", _document(200, pdf_url=None))
    world.http.add("https://arxiv.org/pdf/2101.00001", PDF_BYTES, content_type="application/pdf")
    world.pdf.add(PDF_BYTES, _pdf_document())
    assert (await world.resolver.resolve(url)).source is ContentSource.PDF


async def test_text_over_the_limit_is_cut_at_a_block_boundary(world: World) -> None:
    url = "https://example.org/long.md"
    body = "\n\n".join(f"Paragraph {i} " + "x" * 80 for i in range(100))
    world.http.add(url, body, content_type="text/markdown")
    resolver = ContentResolver(world.http, world.html, world.pdf, max_characters=1000)
    result = await resolver.resolve(url)
    assert len(result.text) <= 1000 and result.text.endswith("x" * 80)
    assert any("cut" in m for m in result.diagnostics.messages())


async def test_diagnostics_are_never_empty_and_in_order(world: World) -> None:
    url = "https://example.org/notes.txt"
    world.http.add(url, "hello", content_type="text/plain")
    steps = [d.step for d in (await world.resolver.resolve(url)).diagnostics.decisions]
    assert steps[:4] == ["normalise", "accept", "fetch", "route"] and steps[-1] == "result"
