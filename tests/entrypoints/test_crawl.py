"""A whole site crawled into the store through the facade, against a loopback site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import pytest
from aiohttp import web

from sheaf import Knowledge
from sheaf.adapters.rendering.chromium_renderer import find_chromium
from tests.docs_site import ALLOWED, LIVE_TEXT, DocsSite
from tests.entrypoints.cli_runner import SHEAF, run, run_async
from tests.local_server import LocalServer

pytestmark = pytest.mark.anyio


async def crawl(kb: Knowledge, url: str, **options: Any) -> tuple[list[Any], Any]:
    events = [event async for event in kb.crawl(url, **{"delay": 0, **options})]
    return events[:-1], events[-1]


def by_outcome(summary: Any) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for visit in summary.visits:
        found.setdefault(visit.outcome.value, set()).add(visit.address.rsplit("/", 1)[1])
    return found


async def test_a_crawl_stores_exactly_the_allowed_pages_once(
        local_server: LocalServer, tmp_path: Path) -> None:
    site = DocsSite(local_server)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        progress, summary = await crawl(kb, local_server.url("/docs/intro"))
        documents = await kb.documents()
        outcomes = by_outcome(summary)
        assert outcomes["new"] == ALLOWED - {"copy"}
        assert outcomes["duplicate"] == {"copy"}  # same bytes as intro: stored once
        assert {d.url.rsplit("/", 1)[1] for d in documents} == ALLOWED - {"copy"}
        assert len(documents) == len(ALLOWED) - 1
        # robots.txt, nofollow, another prefix, the redirect to a page already queued
        skipped = {v.address.rsplit("/", 1)[1]: v.reason for v in summary.visits
                   if v.outcome.value == "skipped"}
        assert skipped.keys() == {"keys", "old"}
        assert "robots.txt" in skipped["keys"]
        assert site.fetches("/docs/secret") == 0 and site.fetches("/blog/news") == 0
        assert site.fetches("/docs/private/keys") == 0
        for name in ALLOWED - {"guide"}:  # tracking parameters: one fetch each
            assert site.fetches(f"/docs/{name}") == 1, name
        # once, and once more as the hop of /docs/old's redirect (not stored again)
        assert site.fetches("/docs/guide") == 2 and site.fetches("/docs/guide/") == 0
        assert len(progress) == len(summary.visits)
        assert summary.not_visited == 0
        hits = await kb.search("concrete pier spring tide")
        assert hits and hits[0].url == local_server.url("/docs/install")


async def test_a_second_crawl_reports_unchanged_then_changed_and_removed(
        local_server: LocalServer, tmp_path: Path) -> None:
    site = DocsSite(local_server)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        await crawl(kb, local_server.url("/docs/intro"))
        before = len(local_server.seen)
        _, again = await crawl(kb, local_server.url("/docs/intro"))
        assert by_outcome(again)["unchanged"] >= ALLOWED - {"copy"}
        assert not {"new", "changed", "removed"} & by_outcome(again).keys()
        assert all(site.fetches(f"/docs/{n}") == 1 for n in ALLOWED - {"guide"})
        assert len(local_server.seen) > before  # asked again, answered 304

        site.build(changed=frozenset({"guide"}), removed=frozenset({"storms", "orphan"}))
        _, third = await crawl(kb, local_server.url("/docs/intro"))
        outcomes = by_outcome(third)
        assert outcomes["changed"] == {"guide"}
        assert outcomes["removed"] == {"storms", "orphan"}
        assert third.as_dict()["counts"]["removed"] == 2


async def test_a_bounded_crawl_stops_at_its_page_bound(
        local_server: LocalServer, tmp_path: Path) -> None:
    DocsSite(local_server)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        _, summary = await crawl(kb, local_server.url("/docs/intro"), max_pages=3,
                                 concurrency=1)
        fetched = [v for v in summary.visits if v.outcome.value != "skipped"]
        assert len(fetched) == 3
        assert summary.not_visited > 0
        assert len(await kb.documents()) <= 3


async def test_the_cli_crawls_and_prints_each_page_and_the_summary(
        local_server: LocalServer, tmp_path: Path) -> None:
    DocsSite(local_server)
    done = await run_async("ingest", "--crawl", local_server.url("/docs/intro"),
                           "--store", tmp_path / "kb.duckdb", "--allow-private",
                           "--delay", "0", "--json")
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records[-1]["summary"]["counts"]["new"] == len(ALLOWED) - 1
    pages = {r["page"]["address"].rsplit("/", 1)[1]: r["page"]["outcome"]
             for r in records[:-1]}
    assert pages["copy"] == "duplicate" and pages["keys"] == "skipped"
    again = await run_async("ingest", "--crawl", local_server.url("/docs/intro"),
                            "--store", tmp_path / "kb.duckdb", "--allow-private",
                            "--delay", "0")
    assert again.exit_code == 0, again.output
    assert f"crawl: 0 new, 0 changed, {len(ALLOWED)} unchanged" in again.stderr


def test_crawl_options_are_refused_with_other_sources(tmp_path: Path) -> None:
    done = run("ingest", "a.txt", "--crawl", "https://a.org/", "--store", tmp_path / "k")
    assert done.exit_code == 2 and "--crawl takes no other sources" in done.stderr


@pytest.mark.slow  # a real process killed mid-crawl
async def test_a_killed_crawl_resumes_from_its_frontier(
        local_server: LocalServer, tmp_path: Path) -> None:
    site = DocsSite(local_server)
    reached, release = anyio.Event(), anyio.Event()
    serve_guide = local_server._handlers["/docs/guide"]

    async def stalled(request: web.Request) -> web.StreamResponse:
        reached.set()
        await release.wait()
        return await serve_guide(request)

    local_server.route("/docs/guide", stalled)
    store = tmp_path / "kb.duckdb"
    command = [SHEAF, "ingest", "--crawl", local_server.url("/docs/intro"), "--store",
               str(store), "--allow-private", "--delay", "0", "--concurrency", "1",
               "--json"]
    async with await anyio.open_process(command) as process:
        with anyio.fail_after(60):
            await reached.wait()
        await anyio.sleep(1.5)  # past the journal's save interval
        process.kill()
        await process.wait()
    release.set()
    local_server.route("/docs/guide", serve_guide)
    intro_fetches = site.fetches("/docs/intro")
    async with Knowledge.open(store, allow_private_network=True) as kb:
        _, summary = await crawl(kb, local_server.url("/docs/intro"))
        assert summary.resumed
        documents = await kb.documents()
    assert sorted(d.url.rsplit("/", 1)[1] for d in documents) == sorted(ALLOWED - {"copy"})
    assert site.fetches("/docs/intro") == intro_fetches == 1  # visited before the kill
    outcomes = by_outcome(summary)
    assert "guide" in outcomes["new"]


@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed")
async def test_a_page_built_by_script_is_rendered_found_and_quotable(
        local_server: LocalServer, tmp_path: Path) -> None:
    DocsSite(local_server, live=True)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        _, summary = await crawl(kb, local_server.url("/docs/intro"))
        assert by_outcome(summary)["new"] == ALLOWED - {"copy"} | {"live"}
        stored = sorted(d.url.rsplit("/", 1)[1] for d in await kb.documents())
        assert stored == sorted(ALLOWED - {"copy"} | {"live"})  # each once
        hits = await kb.search("harbour rose forty centimetres")
        assert hits and hits[0].url == local_server.url("/docs/live")
        quotes = await kb.quote(hits[0].document_id, text=LIVE_TEXT)
        assert quotes and quotes[0].text == LIVE_TEXT
        _, again = await crawl(kb, local_server.url("/docs/intro"))
        assert by_outcome(again)["unchanged"] == ALLOWED | {"live"}
        assert by_outcome(again).keys() == {"unchanged", "skipped"}


async def test_the_http_api_streams_the_crawl_and_the_tool_returns_its_pages(
        local_server: LocalServer, tmp_path: Path) -> None:
    from sheaf.entrypoints.http.http_api import ApiSettings, build_app

    DocsSite(local_server)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        runner = web.AppRunner(build_app(kb, ApiSettings(uploads=tmp_path / "up")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(f"http://127.0.0.1:{port}/v1/crawls", json={
                        "url": local_server.url("/docs/intro"), "delay": 0,
                        "max_pages": 50, "exclude": ["*/docs/storms"]}) as response:
                    assert response.status == 200
                    assert response.content_type == "application/x-ndjson"
                    lines = [json.loads(line) for line in (await response.text()).splitlines()]
                async with session.post(f"http://127.0.0.1:{port}/v1/crawls",
                                        json={"url": "ftp://a.org/"}) as refused:
                    assert refused.status == 400
                    assert (await refused.json())["kind"] == "invalid_url"
        finally:
            await runner.cleanup()
        summary = lines[-1]["summary"]
        assert summary["counts"]["new"] == len(ALLOWED) - 2  # copy is a duplicate
        assert all("page" in line for line in lines[:-1])
        assert "storms" not in {line["page"]["address"].rsplit("/", 1)[1]
                                for line in lines[:-1]}
        answer = await kb.call_tool("crawl_site", {"url": local_server.url("/docs/intro"),
                                                   "max_pages": 50})
        assert answer["counts"]["unchanged"] == len(ALLOWED) - 1  # as the API left them
        assert answer["counts"]["new"] == 1  # storms, excluded the first time
        assert {p["outcome"] for p in answer["pages"]} >= {"unchanged", "new", "skipped"}


async def test_a_crawl_through_the_stores_holder_gives_the_same_records(
        local_server: LocalServer, tmp_path: Path) -> None:
    import os

    from sheaf.application.crawling.site_crawl import CrawlProgress, CrawlSummary
    from sheaf.entrypoints.api.held_store import HolderRecord
    from sheaf.entrypoints.holder.held_knowledge import HeldKnowledge
    from sheaf.entrypoints.holder.holder_api import HeldRequests, build_holder_app
    from sheaf.entrypoints.holder.holder_client import HolderClient

    DocsSite(local_server)
    async with Knowledge.open(tmp_path / "kb.duckdb", allow_private_network=True) as kb:
        runner = web.AppRunner(build_holder_app(kb, "secret", HeldRequests()),
                               access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        client = HolderClient(HolderRecord(os.getpid(), "sheaf test",
                                           f"http://127.0.0.1:{runner.addresses[0][1]}",
                                           "secret"))
        try:
            held = HeldKnowledge(client, kb.space)
            events = [e async for e in held.crawl(local_server.url("/docs/intro"), delay=0)]
        finally:
            client.close()
            await runner.cleanup()
        assert all(isinstance(e, CrawlProgress) for e in events[:-1])
        summary = events[-1]
        assert isinstance(summary, CrawlSummary) and by_outcome(summary)["new"] == \
            ALLOWED - {"copy"}
        _, again = await crawl(kb, local_server.url("/docs/intro"))
        assert {v.address for v in again.visits} == {v.address for v in summary.visits}
