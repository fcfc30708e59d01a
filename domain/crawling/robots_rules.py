"""robots.txt as RFC 9309 reads it: the group for our product token (else `*`), the
longest matching rule deciding, `*` and `$` in patterns, plus `Crawl-delay` and
`Sitemap` lines."""

from __future__ import annotations

import functools
import re
from urllib.parse import quote, unquote, urlsplit

import attrs

ROBOTS_MAX_BYTES = 500 * 1024
"""RFC 9309 asks crawlers to read at least 500 KiB; past it the rest is ignored."""
MAX_CRAWL_DELAY = 60.0


@attrs.frozen
class RobotsRule:
    allow: bool
    pattern: str

    def matches(self, path: str) -> bool:
        return _compiled(self.pattern).match(path) is not None


@attrs.frozen
class RobotsRules:
    """What one site's robots.txt says to one product token."""

    rules: tuple[RobotsRule, ...] = ()
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()
    disallow_all: bool = False
    """Set when robots.txt could not be read for a server-side reason (RFC 9309 §2.3.1.4:
    assume everything is disallowed)."""

    def allows(self, url: str) -> bool:
        """Whether the page at `url` may be fetched."""
        if self.disallow_all:
            return False
        parts = urlsplit(url)
        path = _normal_path(parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if path == "/robots.txt":
            return True
        best: RobotsRule | None = None
        for rule in self.rules:
            if rule.matches(path) and (best is None or len(rule.pattern) > len(best.pattern)
                                       or (len(rule.pattern) == len(best.pattern)
                                           and rule.allow)):
                best = rule
        return best is None or best.allow


ALLOW_ALL = RobotsRules()
DISALLOW_ALL = RobotsRules(disallow_all=True)


def parse_robots(text: str, product: str) -> RobotsRules:
    """The rules of `text` for `product` (a crawler's product token, such as `sheaf`):
    the groups naming it (case-insensitively), else the `*` groups, merged."""
    text = text[:ROBOTS_MAX_BYTES]
    product = product.lower()
    mine: list[RobotsRule] = []
    anyone: list[RobotsRule] = []
    mine_delay: float | None = None
    anyone_delay: float | None = None
    named_me = False
    sitemaps: list[str] = []
    agents: list[str] = []
    in_rules = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        field, _, value = line.partition(":")
        field, value = field.strip().lower(), value.strip()
        if field == "sitemap":
            if value:
                sitemaps.append(value)
            continue
        if field == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            agents.append(value.lower())
            continue
        if field not in ("allow", "disallow", "crawl-delay") or not agents:
            continue
        in_rules = True
        for_me = any(a and a != "*" and product.startswith(a.split("/")[0]) for a in agents)
        for_anyone = "*" in agents
        if not (for_me or for_anyone):
            continue
        named_me = named_me or for_me
        if field == "crawl-delay":
            delay = _delay(value)
            if for_me:
                mine_delay = delay if delay is not None else mine_delay
            elif for_anyone:
                anyone_delay = delay if delay is not None else anyone_delay
            continue
        if not value:
            continue  # `Disallow:` with nothing means "allow everything"
        rule = RobotsRule(field == "allow", _normal_pattern(value))
        (mine if for_me else anyone).append(rule)
    if named_me:
        return RobotsRules(tuple(mine), mine_delay, tuple(sitemaps))
    return RobotsRules(tuple(anyone), anyone_delay, tuple(sitemaps))


def robots_for_status(status: int) -> RobotsRules | None:
    """The rules an unreadable robots.txt implies (RFC 9309 §2.3.1): none to read but
    fetch freely on a 4xx, fetch nothing on a 5xx; None when the body should be read."""
    if 200 <= status < 300:
        return None
    if 400 <= status < 500:
        return ALLOW_ALL
    return DISALLOW_ALL


def _delay(value: str) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return min(max(delay, 0.0), MAX_CRAWL_DELAY)


def _normal_pattern(pattern: str) -> str:
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    return _normal_path(pattern)


def _normal_path(path: str) -> str:
    """Percent-encoding made uniform, so `/caf%C3%A9` and `/café` compare equal."""
    return quote(unquote(path), safe="/*$?=&;:@+,!~'()%")


@functools.lru_cache(maxsize=2048)
def _compiled(pattern: str) -> re.Pattern[str]:
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = ".*".join(re.escape(part) for part in body.split("*"))
    return re.compile(regex + ("$" if anchored else ""))
