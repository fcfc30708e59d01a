"""Crawling and rendering on a generated loopback docs site, against plain peers in the
same run.

    .venv/bin/python -P bench/crawl_rendering.py [--pages 120] [--rendered 20] [--rounds 2]

The site: `--pages` static documentation pages linked from a nav and a sitemap, and
`--rendered` pages whose text only their script writes. Printed:
- crawl: pages/s of `Knowledge.crawl` (discovery, robots.txt, link reading, ingest into
  a fresh DuckDB store) against `Knowledge.ingest_many` over the same URL list given
  outright (no discovery) — the ratio is what crawling costs over ingesting;
- render: pages/s of sheaf's `ChromiumRenderer` (one browser, every request judged)
  against `chromium --headless --dump-dom URL` started per page (a naive peer), and the
  peak resident memory of sheaf's browser process tree.
Rounds interleave the two sides so a busy machine slows them alike; the best round of
each is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sheaf import Knowledge
from sheaf.adapters.fetching.aiohttp_http_client import AiohttpHttpClient
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.rendering.chromium_renderer import (
    ChromiumRenderer,
    find_chromium,
    tree_memory,
)

WORDS = ["tide", "gauge", "harbour", "pier", "storm", "surge", "moon", "spring", "neap",
         "volunteer", "reading", "record", "height", "metre", "centimetre", "chart",
         "datum", "buoy", "mooring"]


def text(seed: int, words: int = 180) -> str:
    return " ".join(WORDS[(seed * 7 + i * 13) % len(WORDS)] for i in range(words)) + "."


def build_site(pages: int, rendered: int) -> dict[str, tuple[bytes, str]]:
    site: dict[str, tuple[bytes, str]] = {}
    names = [f"p{n}" for n in range(pages)]
    for n, name in enumerate(names):
        nav = "".join(f'<a href="/docs/{names[(n + k) % pages]}">next {k}</a>'
                      for k in range(1, 4))
        body = (f"<html><head><title>Page {n}</title></head><body><nav>{nav}</nav><main>"
                f"<article><h1>Page {n}</h1><p>{text(n)}</p><p>{text(n + 1)}</p></article>"
                f"</main></body></html>")
        site[f"/docs/{name}"] = (body.encode(), "text/html")
    for n in range(rendered):
        script = (f"document.addEventListener('DOMContentLoaded', () => {{ document."
                  f"getElementById('root').innerHTML = '<main><article><h1>Live {n}</h1>"
                  f"<p>{text(n + 99)}</p></article></main>'; }});")
        site[f"/static/live{n}.js"] = (script.encode(), "text/javascript")
        site[f"/docs/live{n}"] = (f'<html><head><title>Live {n}</title><script src="/static/'
                                  f'live{n}.js"></script></head><body><div id="root"></div>'
                                  f"</body></html>".encode(), "text/html")
    return site


async def serve(site: dict[str, tuple[bytes, str]]) -> tuple[web.AppRunner, str]:
    async def handler(request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == "/robots.txt":
            return web.Response(text=f"User-agent: *\nSitemap: {base}/sitemap.xml\n")
        if path == "/sitemap.xml":
            locs = "".join(f"<url><loc>{base}{p}</loc></url>" for p in site
                           if p.startswith("/docs/"))
            return web.Response(text=f"<urlset>{locs}</urlset>", content_type="application/xml")
        found = site.get(path)
        if found is None:
            return web.Response(status=404)
        return web.Response(body=found[0], content_type=found[1])

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    base = f"http://127.0.0.1:{tcp._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
    return runner, base


async def crawl_round(base: str, pages: int, rendered: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        async with Knowledge.open(Path(folder) / "kb.duckdb", embedder="hashing",
                                  allow_private_network=True) as kb:
            started = time.perf_counter()
            async for _ in kb.crawl(base + "/docs/p0", max_pages=pages + rendered + 10,
                                    max_depth=50, delay=0, concurrency=4, render="never"):
                pass
            crawl = (pages + rendered) / (time.perf_counter() - started)
    urls = [f"{base}/docs/p{n}" for n in range(pages)] + [
        f"{base}/docs/live{n}" for n in range(rendered)]
    with tempfile.TemporaryDirectory() as folder:
        async with Knowledge.open(Path(folder) / "kb.duckdb", embedder="hashing",
                                  allow_private_network=True) as kb:
            started = time.perf_counter()
            async for _ in kb.ingest_many(urls, concurrency=4, render="never"):
                pass
            listed = len(urls) / (time.perf_counter() - started)
    return crawl, listed


def dump_dom(executable: str, url: str) -> None:
    subprocess.run([executable, "--headless=new", "--no-sandbox", "--disable-gpu",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--dump-dom", url],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   timeout=60)


async def render_round(base: str, rendered: int, executable: str) -> tuple[float, float, int]:
    client = AiohttpHttpClient(HttpSettings(allow_private_network=True, retries=0))
    renderer = ChromiumRenderer(client, executable=executable)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            process = renderer._process
            if process is not None:
                peak = max(peak, tree_memory(process.pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        started = time.perf_counter()
        for n in range(rendered):
            first = await client.get(f"{base}/docs/live{n}", accept="text/html")
            page = await renderer.render(first)
            assert b"<article>" in page.html
        ours = rendered / (time.perf_counter() - started)
    finally:
        stop.set()
        watcher.join()
        await renderer.aclose()
        await client.aclose()
    started = time.perf_counter()
    for n in range(rendered):
        await asyncio.to_thread(dump_dom, executable, f"{base}/docs/live{n}")
    peer = rendered / (time.perf_counter() - started)
    return ours, peer, peak


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=120)
    parser.add_argument("--rendered", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    runner, base = await serve(build_site(args.pages, args.rendered))
    executable = find_chromium()
    crawls, renders = [], []
    try:
        for _ in range(args.rounds):
            crawls.append(await crawl_round(base, args.pages, args.rendered))
            if executable is not None:
                renders.append(await render_round(base, args.rendered, executable))
    finally:
        await runner.cleanup()
    crawl, listed = max(crawls)
    print(f"site: {args.pages} static + {args.rendered} script-built pages on loopback; "
          f"best of {args.rounds} rounds")
    print(f"crawl (discovery + ingest):   {crawl:7.1f} pages/s")
    print(f"ingest_many of the URL list:  {listed:7.1f} pages/s   crawl/list "
          f"{crawl / listed:.2f}x")
    if not renders:
        print("render: skipped (no Chromium installed)")
        return
    ours, peer, _ = max(renders)
    print(f"render, sheaf (one browser):  {ours:7.2f} pages/s   peak browser memory (PSS) "
          f"{max(r[2] for r in renders) / 2**20:.0f} MiB")
    print(f"render, chromium --dump-dom:  {peer:7.2f} pages/s   sheaf/peer {ours / peer:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
