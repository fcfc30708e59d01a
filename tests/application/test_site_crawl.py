"""SiteCrawl with fakes: politeness (robots.txt's Crawl-delay, Retry-After) on a fake
clock, robots.txt's server errors, and a site that cannot be reached."""

from __future__ import annotations

import pytest

from sheaf.adapters.blobs.memory_artifact_store import MemoryArtifactStore
from sheaf.adapters.fetching.http_settings import HttpSettings
from sheaf.adapters.fetching.memory_http_client import MemoryHttpClient
from sheaf.adapters.html.memory_html_extractor import MemoryHtmlExtractor
from sheaf.adapters.html.memory_link_reader import MemoryLinkReader
from sheaf.adapters.pdf.memory_pdf_extractor import MemoryPdfExtractor
from sheaf.application.concurrency.worker_pool import WorkerPool
from sheaf.application.crawling.crawl_journals import CrawlJournals
from sheaf.application.crawling.site_crawl import CrawlPlan, CrawlPorts, SiteCrawl
from sheaf.application.extraction.content_resolver import ContentResolver
from sheaf.application.ingestion.ingestion import IngestOptions
from sheaf.application.ports.http_client import HttpResponse
from sheaf.application.ports.link_reader import PageLinks
from sheaf.domain.crawling.crawl_scope import CrawlScope
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.store.ingestion import IngestResult, IngestStatus

pytestmark = pytest.mark.anyio
SITE = "https://docs.example"


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


class Site:
    def __init__(self, robots: str = "", robots_status: int = 200) -> None:
        self.http = MemoryHttpClient(HttpSettings())
        self.links = MemoryLinkReader()
        self.http.add(SITE + "/robots.txt", robots, status=robots_status,
                      content_type="text/plain")
        self.ingested: list[str] = []
        self.time = FakeTime()

    def page(self, path: str, *links: str) -> None:
        body = f"<html><body><p>{path}</p></body></html>".encode()
        self.http.add(SITE + path, body, content_type="text/html")
        self.links.add(body, PageLinks(tuple(SITE + link for link in links)))

    async def ingest(self, source: str, options: IngestOptions) -> IngestResult:
        self.ingested.append(source)
        return IngestResult(source, IngestStatus.NEW, document_id=f"doc_{len(self.ingested)}")

    def crawl(self, http: object = None) -> SiteCrawl:
        client = http or self.http
        resolver = ContentResolver(client, MemoryHtmlExtractor(),  # type: ignore[arg-type]
                                   MemoryPdfExtractor())
        return SiteCrawl(CrawlPorts(client, resolver, self.links, self.ingest,  # type: ignore[arg-type]
                                    CrawlJournals(MemoryArtifactStore()), WorkerPool(1)),
                         clock=self.time.clock, sleep=self.time.sleep)


def plan(**options: object) -> CrawlPlan:
    return CrawlPlan(CrawlScope(SITE + "/docs/a"), discover=False, **options)  # type: ignore[arg-type]


async def test_crawl_delay_spaces_every_request() -> None:
    site = Site("User-agent: *\nCrawl-delay: 2\n")
    site.page("/docs/a", "/docs/b", "/docs/c")
    site.page("/docs/b")
    site.page("/docs/c")
    summary = await site.crawl().run(plan(delay=0.5, concurrency=2), IngestOptions())
    assert summary.counts["new"] == 3
    assert site.time.slept == [2.0, 2.0, 2.0]  # after robots.txt, before each later page


async def test_retry_after_is_waited_for_once() -> None:
    site = Site()
    site.page("/docs/a")

    class Limited:
        """Answers 429 the first time it is asked for the page."""

        def __init__(self) -> None:
            self.asked = 0

        async def get(self, url: str, *, accept: str,
                      headers: tuple[tuple[str, str], ...] = ()) -> HttpResponse:
            if url.endswith("/docs/a"):
                self.asked += 1
                if self.asked == 1:
                    return HttpResponse(url, 429, (("Retry-After", "7"),), b"")
            return await site.http.get(url, accept=accept, headers=headers)

    summary = await site.crawl(Limited()).run(plan(delay=0), IngestOptions())
    assert summary.counts["new"] == 1 and 7.0 in site.time.slept


async def test_a_robots_server_error_fetches_nothing_and_says_why() -> None:
    site = Site(robots="oops", robots_status=503)
    site.page("/docs/a")
    summary = await site.crawl().run(plan(), IngestOptions())
    (visit,) = summary.visits
    assert visit.outcome.value == "skipped" and "HTTP 503" in (visit.reason or "")
    assert site.ingested == []


async def test_a_site_that_cannot_be_reached_fails_the_crawl() -> None:
    site = Site()
    with pytest.raises(SheafError) as caught:
        await site.crawl(MemoryHttpClient(HttpSettings(), dns={"docs.example": "10.0.0.1"})
                         ).run(plan(), IngestOptions())
    assert caught.value.kind is ErrorKind.BLOCKED_ADDRESS
    assert "robots.txt" in caught.value.message


async def test_bad_plans_are_configuration_errors() -> None:
    for bad in ({"concurrency": 0}, {"concurrency": 99}, {"delay": -1}):
        with pytest.raises(SheafError) as caught:
            plan(**bad)
        assert caught.value.kind is ErrorKind.CONFIGURATION
