"""The resolver's rendering decision, with the fake HTTP client, extractor and renderer:
what is sent to the browser, what is kept, and what the decision log says."""

from __future__ import annotations

import pytest

from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.adapters.rendering.memory_renderer import MemoryRenderer
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.domain.document.document import BlockDraft, BlockKind, Document
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.errors import ErrorKind, SheafError

pytestmark = pytest.mark.anyio
URL = "https://app.example/story"
SHELL = b'<html><body><div id="root"></div><script src="/bundle.js"></script></body></html>'
DRAWN = b"<html><body><main><p>the story as drawn</p></main></body></html>"
SHORT = b"<html><body><main><p>A short note.</p></main></body></html>"


def document(words: int) -> Document:
    return assemble_document([BlockDraft(BlockKind.PARAGRAPH, text=" ".join(["tide"] *
                                                                              words))])


def world(renderer: MemoryRenderer | None) -> tuple[ContentResolver, MemoryHttpClient,
                                                   MemoryHtmlExtractor]:
    http = MemoryHttpClient(HttpSettings())
    html = MemoryHtmlExtractor()
    html.add(DRAWN, document(400))
    html.add(SHORT, document(3))
    return ContentResolver(http, html, MemoryPdfExtractor(), renderer=renderer), http, html


async def test_a_script_built_shell_is_rendered_and_says_why() -> None:
    renderer = MemoryRenderer()
    renderer.add(URL, DRAWN)
    resolver, http, _ = world(renderer)
    http.add(URL, SHELL, content_type="text/html")
    resolved = await resolver.resolve(URL)
    assert resolved.document.word_count == 400 and renderer.rendered == [URL]
    decision = next(d for d in resolved.diagnostics.decisions if d.step == "render")
    assert "no main content" in decision.message and "application root" in decision.message
    assert "400 words against 0 served" in decision.message
    assert any("rendered in a browser" in note for note in resolved.document.notes)


async def test_a_short_static_page_is_not_sent_to_the_browser() -> None:
    renderer = MemoryRenderer()
    resolver, http, _ = world(renderer)
    http.add(URL, SHORT, content_type="text/html")
    resolved = await resolver.resolve(URL)
    assert resolved.document.word_count == 3 and renderer.rendered == []


async def test_never_keeps_the_shell_and_always_renders_any_page() -> None:
    renderer = MemoryRenderer()
    renderer.add(URL, DRAWN)
    resolver, http, _ = world(renderer)
    http.add(URL, SHELL, content_type="text/html")
    with pytest.raises(SheafError) as caught:
        await resolver.resolve(URL, render="never")
    assert caught.value.kind is ErrorKind.EMPTY and renderer.rendered == []
    http.add(URL, SHORT, content_type="text/html")
    await resolver.resolve(URL, render="always")
    assert renderer.rendered == [URL]


async def test_without_a_browser_auto_says_so_and_always_is_refused() -> None:
    resolver, http, _ = world(None)
    http.add(URL, SHORT + b'<div id="app"></div><script src="/a.js"></script>',
             content_type="text/html")
    with pytest.raises(SheafError) as caught:
        await resolver.resolve(URL, render="always")
    assert caught.value.kind is ErrorKind.CONFIGURATION and "Chromium" in caught.value.message


async def test_a_render_that_fails_fails_the_page_with_its_kind() -> None:
    renderer = MemoryRenderer()
    renderer.fail = SheafError(ErrorKind.TIMEOUT, "the page did not render within 30 s")
    resolver, http, _ = world(renderer)
    http.add(URL, SHELL, content_type="text/html")
    with pytest.raises(SheafError) as caught:
        await resolver.resolve(URL)
    assert caught.value.kind is ErrorKind.TIMEOUT
