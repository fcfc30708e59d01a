"""`sheaf demo`: the main job end to end on the bundled samples, with no outside network.

A loopback server plays a publisher: an article page whose URL has no extension and
whose citation_pdf_url first answers with an HTML login page, then with the real PDF.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from aiohttp import web

from sheaf.domain.resolved_content import ResolvedContent
from sheaf.entrypoints.composition import build_knowledge, build_resolver
from sheaf.entrypoints.configuration import http_settings

SAMPLES = Path(__file__).resolve().parent / "samples"
LOGIN_PAGE = b"<!DOCTYPE html><html><body><h1>Sign in</h1><p>Subscribe to read.</p></body></html>"


ABSTRACT_PAGE = b"""<!DOCTYPE html><html lang="en"><head>
<meta name="citation_title" content="Tidal Rhythms in Coastal Seagrass Growth">
<meta name="citation_doi" content="10.5555/shore.2025.007">
<meta name="citation_journal_title" content="Shoreline Ecology Letters">
<meta name="citation_pdf_url" content="/articles/paper">
<title>Tidal Rhythms in Coastal Seagrass Growth - Shoreline Ecology Letters</title></head>
<body><article><h1>Tidal Rhythms in Coastal Seagrass Growth</h1><h2>Abstract</h2>
<p>We measured the daily growth of the seagrass Zostera marina at four sites over two
summers. Growth followed the spring-neap tidal cycle.</p>
<p><a href="/articles/paper">Download PDF</a> (subscribers only)</p></article></body></html>"""


def _sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


async def run_demo() -> int:
    article, paper = _sample("article.html"), _sample("paper.pdf")
    paywalled = {"value": True}

    async def serve(request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == "/articles/urban-fox":
            return web.Response(body=article, content_type="text/html")
        if path == "/articles/urban-fox-abstract":
            return web.Response(body=ABSTRACT_PAGE, content_type="text/html")
        if path.startswith("/articles/paper"):
            if paywalled["value"]:
                return web.Response(body=LOGIN_PAGE, content_type="application/pdf")
            return web.Response(body=paper, content_type="application/pdf")
        return web.Response(status=404)

    app = web.Application()
    app.router.add_get("/{tail:.*}", serve)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    base = f"http://127.0.0.1:{port}/articles"
    client, resolver = build_resolver(http_settings(allow_private=True))
    try:
        async with client:
            _show("1. Full-text article page (its PDF link is paywalled)",
                  await resolver.resolve(f"{base}/urban-fox"))
            _show("2. Abstract page; its PDF link sends a login page as application/pdf",
                  await resolver.resolve(f"{base}/urban-fox-abstract"))
            paywalled["value"] = False
            _show("3. The same abstract page once the PDF link serves the real PDF",
                  await resolver.resolve(f"{base}/urban-fox-abstract"))
        await _ingest_demo([f"{base}/urban-fox", f"{base}/urban-fox-abstract",
                            str(SAMPLES / "article.html")])
    finally:
        await runner.cleanup()
    return 0


async def _ingest_demo(sources: list[str]) -> None:
    """Ingest into a fresh DuckDB file, twice: the second pass finds nothing new."""
    out = sys.stdout
    with tempfile.TemporaryDirectory(prefix="sheaf-demo-") as folder:
        store = Path(folder) / "demo.duckdb"
        services = build_knowledge(http_settings(allow_private=True), store)
        try:
            out.write(f"\n=== 4. Ingest into the embedded store ({store.name})\n")
            for round_name in ("first pass", "second pass"):
                results = [await services.ingestion.ingest(s) for s in sources]
                out.write(f"{round_name}: " + ", ".join(
                    f"{r.status.value}" for r in results) + "\n")
            for document in await services.catalogue.list("default"):
                out.write(f"  {document.id}  {document.current.content_source:<4}  "
                          f"{document.title}  ({len(document.sources)} source(s))\n")
            status = await services.catalogue.status()
            out.write(f"store: schema {status.schema_version}, "
                      + ", ".join(f"{s.documents} documents in {s.space!r}"
                                  for s in status.spaces) + "\n")
        finally:
            await services.aclose()


def _show(heading: str, content: ResolvedContent) -> None:
    out = sys.stdout
    out.write(f"\n=== {heading}\n")
    out.write(f"source: {content.source.value}   title: {content.title}\n")
    out.write(f"doi: {content.metadata.doi}   characters: {len(content.text)}\n")
    out.write("decisions:\n")
    for message in content.diagnostics.messages():
        out.write(f"  - {message}\n")
    preview = content.text[:600].rstrip()
    out.write(f"text:\n{preview}\n...\n")
