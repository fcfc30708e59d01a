"""SiteCrawl: a whole site into the store, page by page — polite, bounded, resumable,
and able to say what changed since the last crawl."""

from __future__ import annotations

import collections
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import attrs

from ...domain.crawling.crawl_address import crawl_address, site_origin
from ...domain.crawling.crawl_journal import CrawlJournal, FrontierEntry, crawl_id
from ...domain.crawling.crawl_scope import CrawlScope
from ...domain.crawling.page_visit import PageVisit, VisitOutcome
from ...domain.crawling.robots_rules import (
    ALLOW_ALL,
    DISALLOW_ALL,
    RobotsRules,
    parse_robots,
    robots_for_status,
)
from ...domain.crawling.site_maps import parse_llms_txt, parse_sitemap
from ...domain.errors import ErrorKind, SheafError
from ...domain.store.ingestion import IngestResult, IngestStatus
from ..concurrency.worker_pool import WorkerPool
from ..extraction.content_resolver import ContentResolver, FetchedPage
from ..ingestion.ingestion import IngestOptions
from ..ports.http_client import HttpClient, HttpResponse
from ..ports.link_reader import LinkReader, PageLinks
from .crawl_journals import CrawlJournals
from .host_pacing import HostPacer

logger = logging.getLogger("sheaf.crawl")

PRODUCT_TOKEN = "sheaf"
"""The name robots.txt groups address sheaf by (its User-Agent starts with it)."""
MAX_SITEMAP_FILES = 20
MAX_RETRY_AFTER = 60.0
SAVE_INTERVAL = 1.0
"""Seconds between journal saves: a kill loses at most this much of the crawl, and those
pages are fetched again (and come back unchanged) on resume."""
MAX_CONCURRENCY = 16
DEFAULT_DELAY = 0.5
"""Seconds between request starts to a site that asks for no delay of its own."""

_INGESTED = {IngestStatus.NEW: VisitOutcome.NEW, IngestStatus.CHANGED: VisitOutcome.CHANGED,
             IngestStatus.UNCHANGED: VisitOutcome.UNCHANGED,
             IngestStatus.DUPLICATE: VisitOutcome.DUPLICATE,
             IngestStatus.FAILED: VisitOutcome.FAILED}
_GONE = (ErrorKind.NOT_FOUND, ErrorKind.GONE)

Ingest = Callable[[str, IngestOptions], Awaitable[IngestResult]]


@attrs.frozen
class CrawlPlan:
    """How to crawl: the scope, and how hard to press the site."""

    scope: CrawlScope
    concurrency: int = 2
    delay: float = DEFAULT_DELAY
    """Seconds between request starts; robots.txt's Crawl-delay raises it."""
    discover: bool = True
    """Read `llms.txt`, `llms-full.txt` and the sitemaps for pages as well as links."""
    restart: bool = False
    """Start afresh instead of resuming an interrupted crawl of the same site."""

    def __attrs_post_init__(self) -> None:
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise SheafError(ErrorKind.CONFIGURATION,
                             f"crawl concurrency must be between 1 and {MAX_CONCURRENCY}")
        if self.delay < 0:
            raise SheafError(ErrorKind.CONFIGURATION, "crawl delay must be 0 or more")


@attrs.frozen
class CrawlProgress:
    """One page visited: what it came to, and how far the crawl is."""

    visit: PageVisit
    result: IngestResult | None
    visited: int
    queued: int


@attrs.frozen
class CrawlSummary:
    """What one crawl did, page by page and in counts."""

    crawl_id: str
    start: str
    resumed: bool
    visits: tuple[PageVisit, ...]
    not_visited: int
    """Pages found but left in the frontier when the page bound was reached."""

    @property
    def counts(self) -> dict[str, int]:
        counter = collections.Counter(v.outcome.value for v in self.visits)
        return {o.value: counter[o.value] for o in VisitOutcome}

    def as_dict(self) -> dict[str, Any]:
        return {"crawl_id": self.crawl_id, "start": self.start, "resumed": self.resumed,
                "counts": self.counts, "not_visited": self.not_visited,
                "removed": [v.address for v in self.visits
                            if v.outcome is VisitOutcome.REMOVED]}


@attrs.frozen
class CrawlPorts:
    http: HttpClient
    resolver: ContentResolver
    links: LinkReader
    ingest: Ingest
    journals: CrawlJournals
    pool: WorkerPool


class SiteCrawl:
    """Crawls one site under a `CrawlPlan`, each page ingested as its own document.

    Discovery: the start page, the site's `llms.txt`/`llms-full.txt` and sitemaps
    (from robots.txt and `/sitemap.xml`, indexes followed), then links, breadth first.
    robots.txt is honoured for the `sheaf` product token (RFC 9309), and so are robots
    meta tags (`noindex`, `nofollow`) and `rel="nofollow"` links. A page the last crawl
    stored is asked for with its validators (If-None-Match, If-Modified-Since).
    The journal is saved as the crawl goes (at most `SAVE_INTERVAL` apart and when it
    ends or is cancelled), so an interrupted crawl resumes from its frontier."""

    def __init__(self, ports: CrawlPorts, *, product: str = PRODUCT_TOKEN,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        self._ports = ports
        self._product = product
        self._clock = clock
        self._sleep = sleep

    async def run(self, plan: CrawlPlan, options: IngestOptions,
                  on_progress: Callable[[CrawlProgress], Awaitable[None]] | None = None
                  ) -> CrawlSummary:
        """Crawl; every page's outcome goes to `on_progress` as it is known. A site that
        cannot be reached at all fails with its fetch error; a page that fails is one
        failed visit."""
        crawl = _CrawlRun(self._ports, plan, options, on_progress, self._product,
                          HostPacer(plan.delay, self._clock, self._sleep), self._clock)
        return await crawl.run()


class _CrawlRun:
    """The state of one crawl while it runs."""

    def __init__(self, ports: CrawlPorts, plan: CrawlPlan, options: IngestOptions,
                 on_progress: Callable[[CrawlProgress], Awaitable[None]] | None,
                 product: str, pacer: HostPacer, clock: Callable[[], float]) -> None:
        self.ports, self.plan, self.options = ports, plan, options
        self.scope = plan.scope
        self.on_progress = on_progress
        self.product = product
        self.clock = clock
        self.id = crawl_id(options.space, plan.scope)
        self.frontier: collections.deque[FrontierEntry] = collections.deque()
        self.in_flight: dict[str, FrontierEntry] = {}
        self.seen: set[str] = set()
        self.visits: dict[str, PageVisit] = {}
        self.previous: dict[str, PageVisit] = {}
        self.fetches = 0
        self.resumed = False
        self.robots: RobotsRules = ALLOW_ALL
        self.robots_refusal = "robots.txt disallows it"
        self.pacer = pacer
        self.changed = anyio.Condition()
        self.last_save = 0.0

    async def run(self) -> CrawlSummary:
        await self._load()
        await self._read_robots()
        if not self.resumed:
            self._enqueue(self.scope.start, 0)
            if self.plan.discover and self.scope.max_depth >= 1:
                for url in await self._discovered_pages():
                    self._enqueue(url, 1)
        try:
            async with anyio.create_task_group() as workers:
                for _ in range(self.plan.concurrency):
                    workers.start_soon(self._work)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._save(finished=False)
            raise
        not_visited = len(self.frontier)
        if not_visited == 0:
            self._mark_removed()
        await self._save(finished=True)
        return CrawlSummary(self.id, self.scope.start, self.resumed,
                            tuple(self.visits.values()), not_visited)

    # -- journal ---------------------------------------------------------------------
    async def _load(self) -> None:
        journal = await self.ports.journals.load(self.id)
        if journal is None:
            return
        if journal.finished:
            self.previous = {v.address: v for v in journal.visits}
            return
        self.previous = {v.address: v for v in journal.previous}
        if self.plan.restart:
            return
        self.resumed = True
        self.visits = {v.address: v for v in journal.visits}
        self.frontier.extend(journal.frontier)
        self.seen = set(self.visits) | {e.address for e in journal.frontier}
        self.fetches = sum(1 for v in journal.visits if v.outcome is not VisitOutcome.SKIPPED)
        logger.info("resuming crawl %s: %d pages visited, %d queued", self.id,
                    len(self.visits), len(self.frontier))

    async def _save(self, *, finished: bool, force: bool = True) -> None:
        now = self.clock()
        if not force and now - self.last_save < SAVE_INTERVAL:
            return
        self.last_save = now
        if finished:
            journal = CrawlJournal(self.id, self.scope.start, True,
                                   visits=tuple(self.visits.values()))
        else:
            waiting = (*self.in_flight.values(), *self.frontier)
            journal = CrawlJournal(self.id, self.scope.start, False, frontier=tuple(waiting),
                                   visits=tuple(self.visits.values()),
                                   previous=tuple(self.previous.values()))
        await self.ports.journals.save(journal)

    # -- discovery -------------------------------------------------------------------
    async def _read_robots(self) -> None:
        url = site_origin(self.scope.start) + "/robots.txt"
        try:
            response = await self._get(url, "text/plain")
        except SheafError as exc:
            raise SheafError(exc.kind, f"the site cannot be crawled: its robots.txt could "
                             f"not be fetched ({exc.message})", url=url) from None
        implied = robots_for_status(response.status)
        if implied is DISALLOW_ALL:
            # RFC 9309 §2.3.1.3: a server error on robots.txt means assume disallowed.
            self.robots_refusal = (f"robots.txt answered HTTP {response.status}, which "
                                   "means nothing may be fetched for now")
        self.robots = implied if implied is not None else parse_robots(
            response.body.decode("utf-8", "replace"), self.product)
        if self.robots.crawl_delay:
            self.pacer.delay = max(self.pacer.delay, self.robots.crawl_delay)

    async def _discovered_pages(self) -> list[str]:
        origin = site_origin(self.scope.start)
        places = dict.fromkeys([origin + "/", origin + self.scope.prefix])
        found: list[str] = []
        for place in places:
            for name in ("llms.txt", "llms-full.txt"):
                text = await self._text(place + name)
                if text is not None:
                    found.extend(parse_llms_txt(text, place + name))
        sitemaps = list(dict.fromkeys([*self.robots.sitemaps, origin + "/sitemap.xml"]))
        read = 0
        while sitemaps and read < MAX_SITEMAP_FILES:
            sitemap = sitemaps.pop(0)
            if site_origin(sitemap) != origin:
                continue  # another site's sitemap lists another site's pages
            read += 1
            text = await self._text(sitemap)
            if text is not None:
                listed = parse_sitemap(text, sitemap)
                found.extend(listed.pages)
                sitemaps.extend(s for s in listed.sitemaps if s not in sitemaps)
        return found

    async def _text(self, url: str) -> str | None:
        if not self.robots.allows(url):
            return None
        try:
            response = await self._get(url, "text/plain, application/xml, text/xml, */*;q=0.5")
        except SheafError as exc:
            logger.info("no %s: %s", url, exc)
            return None
        if not 200 <= response.status < 300:
            return None
        return response.body.decode("utf-8", "replace")

    async def _get(self, url: str, accept: str) -> HttpResponse:
        await self.pacer.wait_turn()
        return await self.ports.http.get(url, accept=accept)

    def _enqueue(self, url: str, depth: int) -> str | None:
        """Queue `url` when it is new to the crawl and inside it; its address if so."""
        try:
            address = crawl_address(url)
        except SheafError:
            return None
        if address in self.seen or depth > self.scope.max_depth \
                or self.scope.refusal(address) is not None:
            return None
        self.seen.add(address)
        self.frontier.append(FrontierEntry(address, depth))
        return address

    # -- visiting --------------------------------------------------------------------
    async def _work(self) -> None:
        while True:
            async with self.changed:
                while not self.frontier and self.in_flight:
                    await self.changed.wait()
                if not self.frontier or self.fetches >= self.scope.max_pages:
                    self.changed.notify_all()
                    return
                entry = self.frontier.popleft()
                self.in_flight[entry.address] = entry
            try:
                visit, result = await self._visit(entry)
                self.visits[entry.address] = visit
            finally:
                async with self.changed:
                    del self.in_flight[entry.address]
                    self.changed.notify_all()
            await self._save(finished=False, force=False)
            if self.on_progress is not None:
                await self.on_progress(CrawlProgress(visit, result, len(self.visits),
                                                     len(self.frontier)))

    async def _visit(self, entry: FrontierEntry) -> tuple[PageVisit, IngestResult | None]:
        address, depth = entry.address, entry.depth
        if not self.robots.allows(address):
            return PageVisit(address, depth, VisitOutcome.SKIPPED,
                             reason=self.robots_refusal), None
        self.fetches += 1
        before = self.previous.get(address)
        try:
            page = await self._fetch(address, before)
        except SheafError as exc:
            outcome = VisitOutcome.REMOVED if exc.kind in _GONE and before is not None \
                and before.outcome.stored else VisitOutcome.FAILED
            return PageVisit(address, depth, outcome, reason=f"{exc.kind.value}: "
                             f"{exc.message}"), None
        final_url = page.response.url
        final = crawl_address(final_url)
        if final != address:
            refusal = self.scope.refusal(final)
            if refusal is not None:
                return PageVisit(address, depth, VisitOutcome.SKIPPED, url=final_url,
                                 reason=f"redirects outside the crawl ({refusal})"), None
            if final in self.seen:
                return PageVisit(address, depth, VisitOutcome.SKIPPED, url=final_url,
                                 reason=f"redirects to {final}, a page of this crawl"), None
            self.seen.add(final)
        etag, modified = page.response.header("etag"), page.response.header("last-modified")
        if page.response.status == 304 and before is not None:
            self._follow(before.links, depth)
            return attrs.evolve(before, depth=depth, outcome=VisitOutcome.UNCHANGED,
                                etag=etag or before.etag,
                                last_modified=modified or before.last_modified), None
        links = await self._links(page)
        kept = self._follow(() if links.nofollow else links.links, depth)
        if links.noindex:
            return PageVisit(address, depth, VisitOutcome.SKIPPED, url=final_url,
                             links=kept, reason="the page asks not to be indexed "
                             "(robots meta noindex)"), None
        result = await self.ports.ingest(final_url, attrs.evolve(self.options, fetched=page))
        reason = f"{result.error_kind}: {result.message}" if result.error_kind else None
        return PageVisit(address, depth, _INGESTED[result.status], url=final_url,
                         document_id=result.document_id, etag=etag, last_modified=modified,
                         links=kept, reason=reason), result

    async def _fetch(self, address: str, before: PageVisit | None) -> FetchedPage:
        validators: tuple[tuple[str, str], ...] = ()
        if before is not None and before.outcome.stored:
            if before.etag:
                validators = (("If-None-Match", before.etag),)
            elif before.last_modified:
                validators = (("If-Modified-Since", before.last_modified),)
        for attempt in (0, 1):
            await self.pacer.wait_turn()
            try:
                return await self.ports.resolver.fetch(address, self.options.prefer,
                                                       validators=validators,
                                                       render=self.options.render)
            except SheafError as exc:
                wait = exc.retry_after
                if exc.kind is not ErrorKind.RATE_LIMITED or attempt or wait is None \
                        or wait > MAX_RETRY_AFTER:
                    raise
                self.pacer.hold_off(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _links(self, page: FetchedPage) -> PageLinks:
        response = page.response
        kind = (response.content_type or "").lower()
        if "html" not in kind:
            return PageLinks()
        charset = _charset(kind)
        try:
            return await self.ports.pool.run(
                lambda: self.ports.links.read(response.body, url=response.url,
                                              charset=charset))
        except SheafError as exc:
            logger.info("no links read from %s: %s", response.url, exc)
            return PageLinks()

    def _follow(self, links: tuple[str, ...], depth: int) -> tuple[str, ...]:
        """Queue the pages `links` lead to; the in-scope addresses, for the journal."""
        kept: list[str] = []
        for link in links:
            try:
                address = crawl_address(link)
            except SheafError:
                continue
            if self.scope.refusal(address) is None:
                kept.append(address)
                self._enqueue(address, depth + 1)
        return tuple(dict.fromkeys(kept))

    def _mark_removed(self) -> None:
        """Pages the last crawl stored that this one, having gone through its whole
        frontier, never reached."""
        for address, before in self.previous.items():
            if before.outcome.stored and address not in self.visits:
                self.visits[address] = attrs.evolve(before, outcome=VisitOutcome.REMOVED,
                                                    reason="no longer linked from the site")


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.strip() == "charset" and value:
            return value.strip().strip('"')
    return None


def plan_from(options: Mapping[str, Any]) -> CrawlPlan:
    """A plan from the keyword options the interfaces take (`start`, `scope`, `include`,
    `exclude`, `max_pages`, `max_depth`, `concurrency`, `delay`, `discover`,
    `restart`)."""
    given = dict(options)
    scope = CrawlScope(given.pop("start"), kind=given.pop("scope", "prefix"),
                       include=tuple(given.pop("include", ()) or ()),
                       exclude=tuple(given.pop("exclude", ()) or ()),
                       **{k: given.pop(k) for k in ("max_pages", "max_depth") if k in given})
    return CrawlPlan(scope, **given)
