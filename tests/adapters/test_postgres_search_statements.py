"""Search on the PostgreSQL store costs the same few statements whatever k: the hits'
snippets and citations are read in one query each, never one per hit."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.application.search.search import Search
from tests.application.world import World

pytestmark = pytest.mark.anyio


async def test_citations_cost_the_same_queries_whatever_k(
        postgres_schema_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = await PostgresKnowledgeStore.connect(postgres_schema_url)
    await World(store).ingest_heron_notes(60)
    search = Search(store.storage())
    await search.search("default", "heron", 1)  # the space's text statistics, once
    counts = [0]
    execute = psycopg.AsyncConnection.execute

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        # A pool connection's settings, sent once when it is first used (the snippets
        # and citations are read at once, so a second connection may start here).
        if not str(args[0]).lstrip().startswith("SET "):
            counts[0] += 1
        return await execute(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", counted)
    for k in (1, 50):  # one store for both: ingesting the 60 notes is most of the time
        counts[0] = 0
        hits = await search.search("default", "heron", k)
        assert len(hits) == k and len({h.document_id for h in hits}) == k
        assert all(h.title and h.location and h.location.path for h in hits)
        assert all(h.text == h.chunk.text and "heron" in h.text for h in hits)
        assert 2 <= counts[0] <= 3, k  # ranking, the snippets, the citations
    monkeypatch.undo()
    await store.aclose()
