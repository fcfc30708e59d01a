"""`sheaf ingest --crawl URL`: a whole site into the store, with a line per page and a
summary of what changed since the last crawl."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ...domain.crawling.crawl_scope import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_PAGES,
    MAX_PAGES_LIMIT,
    SCOPE_KINDS,
)
from ..api import serialisation
from ..api.settings import Settings
from .cli_session import echo_json, interactive, progress, with_knowledge_api

if TYPE_CHECKING:
    from ..api.knowledge_api import KnowledgeApi

F = TypeVar("F", bound=Callable[..., Any])

CRAWL_OPTIONS = ("scope", "include", "exclude", "max_pages", "max_depth", "delay",
                 "discover", "restart")


def crawl_options(command: F) -> F:
    """The options of `--crawl`, in the order `--help` shows them."""
    for option in reversed([
        click.option("--crawl", "crawl_start", metavar="URL",
                     help="crawl the site from URL: each page a document (robots.txt, "
                          "sitemaps and llms.txt honoured)"),
        click.option("--scope", type=click.Choice(SCOPE_KINDS), default="prefix",
                     show_default=True, help="with --crawl: the start page's directory "
                                             "or its whole host"),
        click.option("--include", multiple=True, metavar="PATTERN",
                     help="with --crawl: only URLs matching this shell pattern "
                          "(repeatable)"),
        click.option("--exclude", multiple=True, metavar="PATTERN",
                     help="with --crawl: leave out URLs matching this shell pattern "
                          "(repeatable)"),
        click.option("--max-pages", type=click.IntRange(1, MAX_PAGES_LIMIT),
                     default=DEFAULT_MAX_PAGES, show_default=True,
                     help="with --crawl: pages fetched at most"),
        click.option("--max-depth", type=click.IntRange(min=0), default=DEFAULT_MAX_DEPTH,
                     show_default=True, help="with --crawl: links followed from the "
                                             "start at most"),
        click.option("--delay", type=click.FloatRange(min=0), default=0.5,
                     show_default=True, help="with --crawl: seconds between requests "
                                             "(robots.txt's Crawl-delay raises it)"),
        click.option("--no-discover", "discover", flag_value=False, default=True,
                     help="with --crawl: follow links only, not sitemaps or llms.txt"),
        click.option("--restart", is_flag=True, help="with --crawl: start afresh "
                                                      "instead of resuming"),
    ]):
        command = option(command)
    return command


def run_crawl(settings: Settings, start: str, crawl: dict[str, Any], *, concurrency: int,
              metadata: dict[str, str], options: dict[str, Any], as_json: bool,
              shared: tuple[str, ...]) -> None:
    """Crawl from `start`, a line per page (a JSON record with `--json`), then the
    summary; exit 1 when a page failed."""
    from ...application.crawling.site_crawl import CrawlSummary

    live = interactive(as_json)

    async def work(kb: KnowledgeApi) -> int:
        failed = 0
        summary: CrawlSummary | None = None
        limit = crawl["max_pages"]
        with progress("crawling", limit, live) as advance:
            async for event in kb.crawl(start, concurrency=min(concurrency, 16),
                                        metadata=metadata, **crawl, **options):
                if isinstance(event, CrawlSummary):
                    summary = event
                    continue
                visit = event.visit
                failed += visit.outcome.value == "failed"
                if visit.outcome.value != "skipped":
                    advance(1)
                if as_json:
                    echo_json(serialisation.crawl_event(event))
                elif visit.reason or not live:
                    line = f"[{event.visited}] {visit.outcome.value:<9} {visit.address}"
                    advance.note(line + (f"  ({visit.reason})" if visit.reason else ""))
        assert summary is not None  # the crawl ends with its summary or raises
        if as_json:
            echo_json(serialisation.crawl_event(summary))
        else:
            counts = ", ".join(f"{n} {o}" for o, n in summary.counts.items())
            resumed = " (resumed)" if summary.resumed else ""
            click.echo(f"crawl{resumed}: {counts}", err=True)
            if summary.not_visited:
                click.echo(f"  {summary.not_visited} pages found but not visited: "
                           f"--max-pages {limit} reached", err=True)
            for removed in summary.as_dict()["removed"]:
                click.echo(f"  removed {removed}", err=True)
        return 1 if failed else 0

    with_knowledge_api(settings, work, shared=shared, hold=True,
                       missing="create")
