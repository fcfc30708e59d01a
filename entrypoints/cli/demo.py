"""`sheaf demo`: the main job end to end on the bundled samples, with no outside network.

A loopback server plays a publisher: an article page whose URL has no extension and
whose citation_pdf_url first answers with an HTML login page, then with the real PDF.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from aiohttp import web

from ...adapters.fetching.http_settings import HttpSettings
from ...domain.document.resolved_content import ResolvedContent
from ..api.composition import build_resolver

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
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

    async def serve(request: web.BaseRequest) -> web.StreamResponse:
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

    # A bare server, not an application: the publisher has one handler and no routes.
    runner = web.ServerRunner(web.Server(serve, access_log=None))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    base = f"http://127.0.0.1:{port}/articles"
    client, resolver = build_resolver(HttpSettings(allow_private_network=True))
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
                            str(SAMPLES / "article.html"), f"{base}/paper.pdf"])
    finally:
        await runner.cleanup()
    return 0


async def _ingest_demo(sources: list[str]) -> None:
    """The knowledge job on a fresh DuckDB file through `sheaf.Knowledge`: ingest twice
    (the second pass finds nothing new), then sections, search and a verbatim quote."""
    from ..api.knowledge import Knowledge

    out = sys.stdout
    with tempfile.TemporaryDirectory(prefix="sheaf-demo-") as folder:
        store = Path(folder) / "demo.duckdb"
        async with Knowledge.open(store, allow_private_network=True) as kb:
            out.write(f"\n=== 4. Ingest into the embedded store ({store.name})\n")
            for round_name in ("first pass", "second pass"):
                results = [await kb.ingest(s) for s in sources]
                out.write(f"{round_name}: " + ", ".join(
                    f"{r.status.value}" for r in results) + "\n")
            documents = await kb.documents()
            for document in documents:
                out.write(f"  {document.id}  {document.current.content_source:<4}  "
                          f"{document.title}  ({len(document.sources)} source(s))\n")
            paper = next(d for d in documents if d.current.content_source == "pdf")
            out.write(f"\n=== 5. Sections of {paper.title!r}\n")
            for section in await kb.sections(paper.id):
                out.write(f"  {'  ' * (section.level - 1)}{section.label:<14} "
                          f"{section.heading or '(inferred)'}  [{section.start}:"
                          f"{section.end}]\n")
            query = "how did seagrass growth follow the tides"
            out.write(f"\n=== 6. Search: {query!r}\n")
            hits = await kb.search(query, 3)
            for rank, hit in enumerate(hits, start=1):
                where = " > ".join(hit.chunk.heading_path) or "-"
                out.write(f"{rank}. {hit.title}  [{where}]  characters {hit.chunk.start}-"
                          f"{hit.chunk.end}\n   {' '.join(hit.chunk.text.split())[:160]}\n")
            passage = next(s for s in (await kb.quote(paper.id, section="results",
                                                      first=1)))
            out.write(f"\n=== 7. Quote: the first sentence of the paper's results\n"
                      f"\"{passage.text}\"\n  -- {passage.title}, "
                      f"{' > '.join(passage.section_path)}, p. "
                      f"{', '.join(map(str, passage.pages))}, characters {passage.start}-"
                      f"{passage.end}\n")
            rewrapped = passage.text.replace(" ", "\n", 4)
            checked = await kb.check_quote(paper.id, rewrapped)
            out.write(f"   a rewrapped copy: {checked.status} ({checked.quotes[0].match} "
                      f"match at {checked.quotes[0].start}-{checked.quotes[0].end})\n")
            changed = await kb.check_quote(paper.id, passage.text.replace(" ", " not ", 1))
            named = ", ".join(f"{d.kind.value} {d.request!r}" for d in (
                changed.closest.differences if changed.closest else ()))
            out.write(f"   a copy with a word added: {changed.status} ({named})\n")
            status = await kb.status()
            out.write(f"\nstore: schema {status.schema_version}, "
                      + ", ".join(f"{s.documents} documents in {s.space!r}"
                                  for s in status.spaces) + "\n")


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
