"""A crawl's journal: where it stands (its frontier and the pages it has visited) and
what the last finished crawl of the same site found, kept so that an interrupted crawl
resumes and a repeated one reports what changed."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import attrs

from .crawl_scope import CrawlScope
from .page_visit import PageVisit

JOURNAL_FORMAT = 1


def crawl_id(space: str, scope: CrawlScope) -> str:
    """One id per space, start page and scope kind: the same crawl run again finds its
    journal."""
    digest = hashlib.sha256(f"{space}\n{scope.kind}\n{scope.start}".encode()).hexdigest()
    return f"crawl_{digest[:16]}"


@attrs.frozen
class FrontierEntry:
    address: str
    depth: int


@attrs.frozen
class CrawlJournal:
    """A crawl's state as it is saved after each page."""

    crawl_id: str
    start: str
    finished: bool
    frontier: tuple[FrontierEntry, ...] = ()
    visits: tuple[PageVisit, ...] = ()
    previous: tuple[PageVisit, ...] = ()
    """The pages of the last finished crawl (empty before the first has finished)."""

    def to_json(self) -> bytes:
        plain: dict[str, Any] = {
            "format": JOURNAL_FORMAT, "crawl_id": self.crawl_id, "start": self.start,
            "finished": self.finished,
            "frontier": [[e.address, e.depth] for e in self.frontier],
            "visits": [v.to_plain() for v in self.visits],
            "previous": [v.to_plain() for v in self.previous]}
        return json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: bytes) -> CrawlJournal | None:
        """The journal `data` holds, or None when it is not one this version reads
        (a damaged or foreign file starts the crawl afresh rather than failing it)."""
        try:
            plain = json.loads(data)
            if plain.get("format") != JOURNAL_FORMAT:
                return None
            return cls(crawl_id=str(plain["crawl_id"]), start=str(plain["start"]),
                       finished=bool(plain["finished"]),
                       frontier=tuple(FrontierEntry(str(a), int(d))
                                      for a, d in plain["frontier"]),
                       visits=tuple(PageVisit.from_plain(v) for v in plain["visits"]),
                       previous=tuple(PageVisit.from_plain(v) for v in plain["previous"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
