"""Crawl journals kept in the artifact store, so they live where the store's other
files do (a folder beside a DuckDB file, or the bucket of a team's store)."""

from __future__ import annotations

from ...domain.crawling.crawl_journal import CrawlJournal
from ..ports.artifact_store import ArtifactStore

_JOURNAL = "journal.json"


class CrawlJournals:
    """Loads and saves crawl journals under `crawls/ID` of an artifact store."""

    def __init__(self, artifacts: ArtifactStore) -> None:
        self._artifacts = artifacts

    async def load(self, crawl_id: str) -> CrawlJournal | None:
        data = await self._artifacts.read(f"crawls/{crawl_id}", _JOURNAL)
        return CrawlJournal.from_json(data) if data is not None else None

    async def save(self, journal: CrawlJournal) -> None:
        await self._artifacts.write(f"crawls/{journal.crawl_id}", _JOURNAL, journal.to_json())
