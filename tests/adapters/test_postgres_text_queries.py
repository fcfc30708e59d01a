"""Any query text is safe on the PostgreSQL store's text ranking: tsquery operators,
quotes, backslashes, URLs, NUL, scripts other than Latin are words or nothing, never an
error, and a snippet's own words find it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle
from tests.contract.test_knowledge_store_contract import T0

pytestmark = pytest.mark.anyio
PIECES = ["seagrass", "tide's", "O'Brien", "a\\b", "&", "|", "!", "<->", ":*", "(", ")",
          "'", '"', "http://x.example/a?b=1&c=2", "x@y.example", "naïve", "Ωμέγα", "北京",
          "foo-bar", "3.14", "-", "the", "and", "\x00", "\t", "  ", "é", "ß", "I", "AT&T",
          "C++", "#tag", "a:b", "\\'", "''", "10/20", "e-mail", "UPPER", "fóxes"]


def phrase(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(PIECES) for _ in range(words))


@pytest.fixture
async def store(postgres_schema_url: str) -> AsyncIterator[PostgresKnowledgeStore]:
    opened = await PostgresKnowledgeStore.connect(postgres_schema_url)
    yield opened
    await opened.aclose()


async def test_generated_queries_are_words_or_nothing(store: PostgresKnowledgeStore) -> None:
    rng = random.Random(21)
    texts = [phrase(rng, rng.randint(1, 12)).replace("\x00", "") for _ in range(40)]
    chunks = tuple(Chunk(id=f"doc_1.v1:snippet:{i}", level="snippet", index=i, start=0,
                         end=len(t), text=t, tokens=3, heading_path=(), section_label=None,
                         pages=(), parent_id=None, prev_id=None, next_id=None,
                         retrieval_text=t) for i, t in enumerate(texts))
    record = VersionRecord(id="doc_1.v1", document_id="doc_1", space="default", number=1,
                           fetched_sha="s", content_sha="s", markdown_sha="m",
                           content_source="raw", content_type="text/plain", title="t",
                           created_at=T0)
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(record, SourceRef(SourceKind.FILE, "/a", "a"),
                                        None, chunks))
        await work.commit()
    ids = {c.id for c in chunks}
    for _ in range(300):
        query = phrase(rng, rng.randint(1, 6))
        found = await store.index.search_text("default", query, 10)
        assert {i for i, _ in found} <= ids, query
        assert all(score > 0 for _, score in found), query
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True), query
    for chunk in chunks:
        async with store.connection.pool.connection() as c:
            words = await (await c.execute(
                "SELECT count(*) FROM unnest(to_tsvector('english', %s))",
                (chunk.retrieval_text,))).fetchone()
        found = {i for i, _ in await store.index.search_text("default", chunk.retrieval_text, 40)}
        assert (chunk.id in found) == bool(words and words[0]), chunk.retrieval_text
