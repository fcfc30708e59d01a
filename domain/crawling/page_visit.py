"""What a crawl learnt of one page: its outcome, its document, the validators for the
next conditional request, and the links it holds."""

from __future__ import annotations

from typing import Any

import attrs

from ..worded_enum import WordedEnum


class VisitOutcome(WordedEnum):
    """What visiting a page came to; the first four are ingest statuses."""

    NEW = "new"
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    FAILED = "failed"
    SKIPPED = "skipped"
    """Never fetched: refused by robots.txt, outside the scope, or past the page bound."""
    REMOVED = "removed"
    """In the last finished crawl, gone from this one (unreachable, 404 or 410)."""

    @property
    def stored(self) -> bool:
        return self in (VisitOutcome.NEW, VisitOutcome.CHANGED, VisitOutcome.UNCHANGED,
                        VisitOutcome.DUPLICATE)


@attrs.frozen
class PageVisit:
    """One page of a crawl, by its crawl address."""

    address: str
    depth: int
    outcome: VisitOutcome
    url: str | None = None
    """The URL fetched last (after redirects)."""
    document_id: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    links: tuple[str, ...] = ()
    """The pages it links to, as crawl addresses (kept so a page answered
    `304 Not Modified` still leads the crawl on)."""
    reason: str | None = None
    """Why it failed or was skipped."""

    def to_plain(self) -> dict[str, Any]:
        plain: dict[str, Any] = {"address": self.address, "depth": self.depth,
                                 "outcome": self.outcome.value}
        for name in ("url", "document_id", "etag", "last_modified", "reason"):
            value = getattr(self, name)
            if value is not None:
                plain[name] = value
        if self.links:
            plain["links"] = list(self.links)
        return plain

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> PageVisit:
        return cls(address=str(plain["address"]), depth=int(plain["depth"]),
                   outcome=VisitOutcome(plain["outcome"]), url=plain.get("url"),
                   document_id=plain.get("document_id"), etag=plain.get("etag"),
                   last_modified=plain.get("last_modified"),
                   links=tuple(plain.get("links", ())), reason=plain.get("reason"))
