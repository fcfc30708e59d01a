"""A generated documentation site on a loopback server, for crawl tests: nav links,
a sitemap, an llms.txt, a robots rule, a redirect, a duplicate page, links with
tracking parameters and trailing slashes, validators that answer 304, and pages that
must never be crawled."""

from __future__ import annotations

import hashlib

from aiohttp import web

from tests.local_server import LocalServer

TOPICS = {
    "intro": "Tidal pools hold sea stars, anemones and small crabs between the tides.",
    "install": "Install the gauge on a concrete pier above the highest spring tide.",
    "guide": "Read the gauge twice a day and record the height in centimetres.",
    "tides": "Spring tides follow the new and the full moon by a day or two.",
    "storms": "Storm surges add a metre or more to the predicted high water.",
    "orphan": "Only the sitemap lists this page about mooring lines and fenders.",
    "llms-only": "Only llms.txt lists this page about reading tide tables aloud.",
}
NAV = ("intro", "install", "guide", "tides")
"""Linked from every page; `storms` is linked only from `tides`."""
ALLOWED = {*TOPICS, "copy"}
"""Every page a crawl from /docs/intro may store: the topics and the duplicate."""


def page(name: str, text: str, links: str = "") -> bytes:
    nav = "".join(f'<li><a href="/docs/{n}">{n}</a></li>' for n in NAV)
    body = (f"<!doctype html><html><head><title>{name.title()} | Tide docs</title></head>"
            f"<body><nav><ul>{nav}</ul></nav><main><article><h1>{name.title()}</h1>"
            f"<p>{text} {text}</p><p>This page of the tide documentation explains "
            f"{name} for volunteers who keep the harbour gauges.</p>{links}"
            f"</article></main><footer><a href='/blog/news'>News</a></footer></body></html>")
    return body.encode()


LIVE_TEXT = ("The live gauge page draws its readings with script after it loads, "
             "so only a browser shows that the harbour rose forty centimetres today.")
LIVE = (b"<!doctype html><html><head><title>Live gauge | Tide docs</title>"
        b'<script src="/static/live.js"></script></head><body><div id="root"></div>'
        b"<noscript>Please enable JavaScript to see the live gauge.</noscript></body></html>")
LIVE_JS = ("document.addEventListener('DOMContentLoaded', () => {"
           "document.getElementById('root').innerHTML = '<main><article><h1>Live gauge</h1>"
           + "".join(f"<p>{LIVE_TEXT} Reading {n}.</p>" for n in range(1, 4))
           + "</article></main>'; });")


class DocsSite:
    """Serves the site; `changed` pages get new text, `removed` ones answer 404. With
    `live`, the intro links a page whose text only its script writes."""

    def __init__(self, server: LocalServer, *, live: bool = False) -> None:
        self.server = server
        self.bodies: dict[str, bytes] = {}
        self.robots = "User-agent: *\nDisallow: /docs/private\n"
        self.live = live
        self.build()

    def build(self, changed: frozenset[str] = frozenset(),
              removed: frozenset[str] = frozenset()) -> None:
        s = self.server
        extra = {
            "intro": '<a href="/docs/tides?utm_source=newsletter#top">tides</a>'
                     '<a href="/docs/guide/">guide</a><a href="/docs/old">old</a>'
                     '<a href="/docs/private/keys">keys</a><a href="/docs/copy">copy</a>'
                     '<a href="mailto:harbour@example.org">mail</a>'
                     '<a href="/docs/secret" rel="nofollow">secret</a>'
                     + ('<a href="/docs/live">live</a>' if self.live else ""),
            "tides": '<a href="storms">storms</a>',
        }
        self.bodies = {}
        for name, text in TOPICS.items():
            if name in removed:
                continue
            text = f"{text} Revised." if name in changed else text
            self.bodies[name] = page(name, text, extra.get(name, ""))
        self.bodies["copy"] = self.bodies["intro"]
        for name, body in self.bodies.items():
            s.route(f"/docs/{name}", self._serve(body))
        for name in removed:
            s.route(f"/docs/{name}", self._missing)
        s.redirect("/docs/old", "/docs/guide", status=301)
        s.add("/docs/live", LIVE, content_type="text/html")
        s.add("/static/live.js", LIVE_JS, content_type="text/javascript")
        s.add("/docs/private/keys", page("keys", "The harbour master's keys."),
              content_type="text/html")
        s.add("/docs/secret", page("secret", "Never follow this link."),
              content_type="text/html")
        s.add("/blog/news", page("news", "Outside the docs prefix."), content_type="text/html")
        s.add("/robots.txt", self.robots + f"Sitemap: {s.url('/sitemap.xml')}\n",
              content_type="text/plain")
        pages = [*TOPICS][:-1]  # llms-only is not in the sitemap
        locs = "".join(f"<url><loc>{s.url('/docs/' + n)}</loc></url>"
                       for n in pages if n not in removed)
        s.add("/sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
              f'"http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>',
              content_type="application/xml")
        s.add("/llms.txt", "# Tide docs\n\n- [Tide tables](/docs/llms-only): reading aloud\n"
              "- [Intro](/docs/intro)\n", content_type="text/plain")

    def fetches(self, path: str) -> int:
        """How many requests reached `path` with a full answer (not 304)."""
        return sum(1 for seen, headers in self.server.seen
                   if seen.split("?")[0] == path and "If-None-Match" not in headers)

    @staticmethod
    def _serve(body: bytes):  # type: ignore[no-untyped-def]
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'

        async def handler(request: web.Request) -> web.StreamResponse:
            if request.headers.get("If-None-Match") == etag:
                return web.Response(status=304, headers={"ETag": etag})
            return web.Response(body=body, headers={"ETag": etag,
                                                    "Content-Type": "text/html; charset=utf-8"})
        return handler

    @staticmethod
    async def _missing(request: web.Request) -> web.StreamResponse:
        return web.Response(status=404, text="not found")
