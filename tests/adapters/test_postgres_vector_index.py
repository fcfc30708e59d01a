"""The PostgreSQL store's vectors behind an HNSW index: built when the table crosses
the threshold, and still exact for a small space or a narrow filter that the graph
search would come back short on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import pytest

from sheaf.adapters.store.postgres import vector_tables
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.search.embeddings import ChunkVectors, EmbeddingModel
from sheaf.domain.search.search_request import SearchFilters
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle
from tests.contract.test_knowledge_store_contract import T0

pytestmark = pytest.mark.anyio
MODEL = EmbeddingModel("test-model", 8)


def unit_rows(rng: np.random.Generator, count: int) -> np.ndarray:
    rows = rng.standard_normal((count, MODEL.dimension)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


async def store_document(store: PostgresKnowledgeStore, space: str, doc: str,
                         vectors: np.ndarray) -> None:
    version_id = f"{doc}.v1"
    chunks = tuple(Chunk(id=f"{version_id}:snippet:{i}", level="snippet", index=i, start=i,
                         end=i + 1, text="x", tokens=1, heading_path=(), section_label=None,
                         pages=(), parent_id=None, prev_id=None, next_id=None,
                         retrieval_text="x") for i in range(len(vectors)))
    record = VersionRecord(id=version_id, document_id=doc, space=space, number=1,
                           fetched_sha=f"sha-{space}-{doc}", content_sha=f"sha-{space}-{doc}",
                           markdown_sha="m", content_source="raw",
                           content_type="text/plain", title=doc, created_at=T0)
    source = SourceRef(SourceKind.FILE, f"/{space}/{doc}", doc)
    bundle = VersionBundle(record, source, None, chunks, ChunkVectors(
        MODEL, tuple(c.id for c in chunks), tuple(tuple(map(float, v)) for v in vectors)))
    async with store.storage().unit_of_work() as work:
        work.versions.add(bundle)
        await work.commit()


@pytest.fixture
async def indexed_store(postgres_schema_url: str) -> AsyncIterator[PostgresKnowledgeStore]:
    # A graph search that gives up after 5 candidates, and a planner that takes the
    # index whenever it can: what a large table does to a small space, at the size of a
    # test.
    url = postgres_schema_url.replace(
        "options=", "options=-chnsw.max_scan_tuples%3D5%20-cenable_seqscan%3Doff%20"
                    "-cenable_bitmapscan%3Doff%20")
    store = await PostgresKnowledgeStore.connect(url)
    yield store
    await store.aclose()


async def test_the_index_is_built_at_the_threshold_and_small_results_stay_exact(
        indexed_store: PostgresKnowledgeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store = indexed_store
    monkeypatch.setattr(vector_tables, "HNSW_THRESHOLD", 400)
    rng = np.random.default_rng(7)
    big = unit_rows(rng, 390)
    await store_document(store, "big", "doc_big", big)
    async with store.connection.pool.connection() as c:
        assert await vector_tables.hnsw_state(c, MODEL.dimension) is None  # below it
    small = unit_rows(rng, 12)
    await store_document(store, "small", "doc_small", small)
    async with store.connection.pool.connection() as c:
        assert await vector_tables.hnsw_state(c, MODEL.dimension) is True  # crossed
    query = unit_rows(rng, 1)[0]
    async with store.connection.pool.connection() as c:
        # The planner answers a small space from the `space` index and a sort (exact);
        # without that index it must walk the graph, which gives up after 5 rows here.
        await c.execute("DROP INDEX vectors_8_space")
        sql, _ = vector_tables.search_sql(MODEL.dimension, SearchFilters())
        plan = await (await c.execute("EXPLAIN " + sql, {  # type: ignore[operator]
            "probe": query, "space": "small", "limit": 10})).fetchall()
    assert "vectors_8_hnsw" in " ".join(str(r[0]) for r in plan)  # the graph is used
    hits = await store.index.search_vectors("small", MODEL, tuple(map(float, query)), 10)
    exact = np.argsort(-(small @ query))[:10]
    assert [i for i, _ in hits] == [f"doc_small.v1:snippet:{i}" for i in exact]
    assert [s for _, s in hits] == pytest.approx(list((small @ query)[exact]), abs=1e-5)
    # A filter only a few snippets of the big space pass.
    narrow = SearchFilters(document_ids=frozenset({"doc_small"}))
    assert await store.index.search_vectors("big", MODEL, tuple(map(float, query)), 10,
                                      narrow) == []
    found = await store.index.search_vectors("big", MODEL, tuple(map(float, query)), 1000)
    assert len(found) == 390  # every row of the space, in spite of the 5-candidate cap


async def test_fingerprints_are_indexed_from_the_first_and_near_duplicates_stay_complete(
        postgres_schema_url: str) -> None:
    store = await PostgresKnowledgeStore.connect(postgres_schema_url)
    async with store.connection.pool.connection() as c:  # with the schema, before any
        assert await vector_tables.hnsw_state(c, vector_tables.FINGERPRINTS) is True
    rng = np.random.default_rng(11)
    base = rng.standard_normal(1024).astype(np.float32)
    prints = [base + rng.standard_normal(1024).astype(np.float32) * (0.05 if n < 3 else 3)
              for n in range(40)]
    prints = [p / np.linalg.norm(p) for p in prints]
    for n, vector in enumerate(prints):
        record = VersionRecord(id=f"doc_{n}.v1", document_id=f"doc_{n}", space="default",
                               number=1, fetched_sha=f"s{n}", content_sha=f"s{n}",
                               markdown_sha="m", content_source="raw",
                               content_type="text/plain", title=None, created_at=T0)
        async with store.storage().unit_of_work() as work:
            work.versions.add(VersionBundle(
                record, SourceRef(SourceKind.FILE, f"/{n}", f"{n}"), None, (), None,
                tuple(map(float, vector))))
            await work.commit()
    async with store.connection.pool.connection() as c:
        assert await vector_tables.hnsw_state(c, vector_tables.FINGERPRINTS) is True
    matrix = np.stack(prints)
    probe = tuple(map(float, prints[0]))
    for threshold in (0.9, -1.0):  # the near-duplicates; every document (more than 16)
        found = await store.index.similar_documents("default", probe, threshold)
        cosines = matrix @ matrix[0]
        expected = sorted(((f"doc_{n}", float(c)) for n, c in enumerate(cosines)
                           if c >= threshold), key=lambda pair: (-pair[1], pair[0]))
        assert [d for d, _ in found] == [d for d, _ in expected], threshold
    assert len(await store.index.similar_documents("default", probe, 0.9)) == 3
    await store.aclose()
