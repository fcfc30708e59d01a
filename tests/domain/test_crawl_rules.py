"""The pure rules of a crawl: addresses, scope, robots.txt, sitemaps and llms.txt."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.crawling.crawl_address import absolute_link, crawl_address
from sheaf.domain.crawling.crawl_journal import CrawlJournal, FrontierEntry
from sheaf.domain.crawling.crawl_scope import CrawlScope
from sheaf.domain.crawling.page_visit import PageVisit, VisitOutcome
from sheaf.domain.crawling.robots_rules import parse_robots, robots_for_status
from sheaf.domain.crawling.site_maps import parse_llms_txt, parse_sitemap
from sheaf.domain.errors import SheafError
from tests.property_examples import examples

segments = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~", min_size=1,
                   max_size=8).filter(lambda s: s not in (".", ".."))
paths = st.lists(segments, max_size=4).map(lambda parts: "/" + "/".join(parts))
params = st.lists(st.tuples(st.sampled_from(["q", "page", "id", "lang"]), segments),
                  max_size=3)
tracking = st.lists(st.tuples(st.sampled_from(["utm_source", "utm_medium", "fbclid",
                                               "gclid", "UTM_Campaign", "mc_eid"]),
                              segments), max_size=3)


@settings(max_examples=examples(200))
@given(paths, params, tracking, st.booleans(), st.sampled_from(["", "#top", "#a-b"]),
       st.sampled_from(["http://Example.ORG", "http://example.org:80",
                        "http://example.org"]))
def test_one_page_spelled_many_ways_has_one_address(
        path: str, query: list[tuple[str, str]], noise: list[tuple[str, str]],
        slash: bool, fragment: str, origin: str) -> None:
    plain = "&".join(f"{k}={v}" for k, v in query)
    noisy = "&".join(f"{k}={v}" for k, v in [*noise[:1], *query, *noise[1:]])
    written = origin + path + ("/" if slash and path != "/" else "") \
        + (f"?{noisy}" if noisy else "") + fragment
    expected = crawl_address("http://example.org" + path + (f"?{plain}" if plain else ""))
    assert crawl_address(written) == expected
    assert crawl_address(expected) == expected  # idempotent


def test_parameters_that_name_the_page_are_kept() -> None:
    assert crawl_address("https://a.org/s?page=2&utm_source=x") == "https://a.org/s?page=2"
    assert crawl_address("https://a.org/") == "https://a.org/"
    assert crawl_address("https://a.org") == "https://a.org/"


@pytest.mark.parametrize("href", ["mailto:a@b.org", "javascript:void(0)", "#top",
                                  "data:text/html,x", "ftp://a.org/f", "  "])
def test_links_that_name_no_web_page_are_dropped(href: str) -> None:
    assert absolute_link(href, "https://a.org/docs/") is None


def test_relative_links_resolve_against_the_page() -> None:
    assert absolute_link("../b#x", "https://a.org/docs/a/") == "https://a.org/docs/b"


def test_a_prefix_scope_keeps_the_start_directory() -> None:
    scope = CrawlScope("https://a.org/docs/intro")
    assert scope.refusal("https://a.org/docs/guide") is None
    assert scope.refusal("https://a.org/docs/intro/part") is None
    assert "outside /docs/" in (scope.refusal("https://a.org/blog/x") or "")
    assert "another site" in (scope.refusal("https://b.org/docs/x") or "")
    assert "another site" in (scope.refusal("http://a.org/docs/x") or "")  # scheme too
    assert CrawlScope("https://a.org/docs/intro", kind="host").refusal(
        "https://a.org/blog/x") is None


def test_patterns_narrow_and_exclude() -> None:
    scope = CrawlScope("https://a.org/docs/", include=("*/docs/api/*",),
                       exclude=("*/docs/api/old*",))
    assert scope.refusal("https://a.org/docs/api/search") is None
    assert scope.refusal("https://a.org/docs/guide") == "matches no include pattern"
    assert "excluded" in (scope.refusal("https://a.org/docs/api/old-v1") or "")
    assert scope.refusal(scope.start) is None  # the start page always belongs


@pytest.mark.parametrize("bad", [{"kind": "site"}, {"max_pages": 0}, {"max_depth": -1}])
def test_a_bad_scope_is_a_configuration_error(bad: dict[str, object]) -> None:
    with pytest.raises(SheafError) as caught:
        CrawlScope("https://a.org/", **bad)  # type: ignore[arg-type]
    assert caught.value.kind.value == "configuration"


ROBOTS = """
# comments and unknown lines are ignored
User-agent: Googlebot
Disallow: /

User-agent: *
Disallow: /private
Allow: /private/open
Disallow: /*.pdf$
Crawl-delay: 2

Sitemap: https://a.org/sitemap.xml
"""


def test_robots_rules_for_everyone() -> None:
    rules = parse_robots(ROBOTS, "sheaf")
    assert rules.allows("https://a.org/docs")
    assert not rules.allows("https://a.org/private/keys")
    assert rules.allows("https://a.org/private/open/door")  # longer rule wins
    assert not rules.allows("https://a.org/papers/a.pdf")
    assert rules.allows("https://a.org/papers/a.pdf?download=1")  # `$` anchors
    assert rules.allows("https://a.org/robots.txt")
    assert rules.crawl_delay == 2.0
    assert rules.sitemaps == ("https://a.org/sitemap.xml",)


def test_a_group_naming_sheaf_replaces_the_star_group() -> None:
    text = ROBOTS + "\nUser-agent: sheaf\nUser-agent: other\nDisallow: /docs/\n"
    rules = parse_robots(text, "sheaf")
    assert not rules.allows("https://a.org/docs/x")
    assert rules.allows("https://a.org/private/keys")
    assert rules.crawl_delay is None


def test_an_empty_disallow_allows_everything() -> None:
    assert parse_robots("User-agent: *\nDisallow:\n", "sheaf").allows("https://a.org/x")


def test_unreadable_robots_follow_rfc_9309() -> None:
    assert robots_for_status(200) is None
    assert robots_for_status(404).allows("https://a.org/x")  # type: ignore[union-attr]
    assert not robots_for_status(503).allows("https://a.org/x")  # type: ignore[union-attr]


@settings(max_examples=examples(100))
@given(st.text(max_size=400))
def test_any_robots_text_parses(text: str) -> None:
    rules = parse_robots(text, "sheaf")
    rules.allows("https://a.org/a/b?c=d")


def test_sitemaps_and_indexes() -> None:
    pages = parse_sitemap('<?xml version="1.0"?><urlset xmlns="x"><url><loc> '
                          'https://a.org/a?x=1&amp;y=2 </loc></url><url><loc>/rel</loc>'
                          '</url><url><loc>mailto:x@a.org</loc></url></urlset>',
                          "https://a.org/sitemap.xml")
    assert pages.pages == ("https://a.org/a?x=1&y=2", "https://a.org/rel")
    index = parse_sitemap('<sitemapindex><sitemap><loc>https://a.org/s1.xml</loc>'
                          '</sitemap></sitemapindex>', "https://a.org/sitemap.xml")
    assert index.sitemaps == ("https://a.org/s1.xml",) and not index.pages


def test_a_sitemap_with_entities_expands_nothing() -> None:
    text = ('<?xml version="1.0"?><!DOCTYPE u [<!ENTITY a "aaaaaaaaaa"><!ENTITY b '
            '"&a;&a;&a;&a;&a;">]><urlset><url><loc>https://a.org/&b;</loc></url></urlset>')
    (page,) = parse_sitemap(text, "https://a.org/").pages
    assert page.startswith("https://a.org/&b") and "aaaa" not in page


def test_llms_txt_links_in_order_once() -> None:
    text = ("# Docs\n> A site.\n\n- [Intro](/docs/intro): start here\n"
            "- [API](https://a.org/api \"title\")\n- [Intro again](/docs/intro)\n"
            "See also https://a.org/faq.\n")
    assert parse_llms_txt(text, "https://a.org/llms.txt") == (
        "https://a.org/docs/intro", "https://a.org/api", "https://a.org/faq")


def test_a_journal_round_trips_and_a_damaged_one_is_none() -> None:
    journal = CrawlJournal("crawl_1", "https://a.org/", False,
                           frontier=(FrontierEntry("https://a.org/b", 1),),
                           visits=(PageVisit("https://a.org/", 0, VisitOutcome.NEW,
                                             etag='"x"', links=("https://a.org/b",)),))
    assert CrawlJournal.from_json(journal.to_json()) == journal
    assert CrawlJournal.from_json(b"{not json") is None
    assert CrawlJournal.from_json(b'{"format": 99}') is None
