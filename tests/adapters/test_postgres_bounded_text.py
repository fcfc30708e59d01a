"""The PostgreSQL store's text ranking reads a bounded number of postings per query term
(ADR-0036; that the retrieval prefix's markers are no words is a contract test):
exactly the full BM25 while every term is within the depth, the full BM25's best
snippets for the rare terms when a common one is cut, and the full ranking again when
filters leave the bounded one short. A store of schema version 1 is indexed again on
opening."""

from __future__ import annotations

import math
import random
from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.store.postgres import schema, text_ranking
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.search.bm25 import K1, B
from sheaf.domain.search.search_request import SearchFilters
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle
from tests.contract.test_knowledge_store_contract import T0

pytestmark = pytest.mark.anyio
WORDS = ["heron", "otter", "weir", "tide", "marsh", "reed", "kelp", "gull", "dune", "cove",
         "silt", "brine", "osprey", "lagoon", "estuary", "plover", "curlew", "shingle"]


@pytest.fixture
async def store(postgres_schema_url: str) -> AsyncIterator[PostgresKnowledgeStore]:
    opened = await PostgresKnowledgeStore.connect(postgres_schema_url)
    yield opened
    await opened.aclose()


def _snippet(document: int, index: int, body: str, title: str, path: tuple[str, ...]
             ) -> Chunk:
    retrieval = (f"[DOC: {title}] [PATH: {' > '.join(path)}] [SECTION: other]\n{body}")
    return Chunk(id=f"doc_{document}.v1:snippet:{index}", level="snippet", index=index,
                 start=0, end=len(body), text=body, tokens=len(body.split()),
                 heading_path=path, section_label="other", pages=(), parent_id=None,
                 prev_id=None, next_id=None, retrieval_text=retrieval)


async def _add(store: PostgresKnowledgeStore, document: int, chunks: tuple[Chunk, ...],
               space: str = "default") -> None:
    record = VersionRecord(id=f"doc_{document}.v1", document_id=f"doc_{document}",
                           space=space, number=1, fetched_sha=f"s{document}",
                           content_sha=f"s{document}", markdown_sha=f"m{document}",
                           content_source="raw", content_type="text/plain", title="t",
                           created_at=T0)
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(record, SourceRef(SourceKind.FILE, f"/d{document}",
                                                          f"d{document}"), None, chunks))
        await work.commit()


async def _corpus(store: PostgresKnowledgeStore, rng: random.Random, documents: int) -> None:
    for document in range(documents):
        snippets = []
        for index in range(5):
            # "tide" is in nearly every snippet; the others are drawn unevenly.
            words = ["tide"] * rng.randint(1, 3) + [
                rng.choices(WORDS, weights=range(len(WORDS), 0, -1))[0]
                for _ in range(rng.randint(3, 40))]
            rng.shuffle(words)
            snippets.append(_snippet(document, index, " ".join(words), f"Survey {document}",
                                     ()))
        await _add(store, document, tuple(snippets))


async def test_the_bounded_ranking_is_the_full_one_within_its_depth(
        store: PostgresKnowledgeStore) -> None:
    rng = random.Random(35)
    await _corpus(store, rng, 60)  # 300 snippets
    index = store.index
    for _ in range(40):
        query = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
        index.ranking, index.depth = "bm25_exact", 2000
        exact = await index.search_text("default", query, 10)
        index.ranking = "bm25"
        bounded = await index.search_text("default", query, 10)
        assert [i for i, _ in bounded] == [i for i, _ in exact], (query, bounded, exact)
        assert [s for _, s in bounded] == pytest.approx([s for _, s in exact]), query


async def test_both_rankings_score_bm25_as_written_out_from_the_stored_terms(
        store: PostgresKnowledgeStore) -> None:
    """Each hit's score is BM25 (the domain's k1 and b, the space's own N and mean length)
    recomputed here from the snippets' stored terms: the SQL's double-precision
    arithmetic and its rounding to nine places change no score beyond rounding."""
    rng = random.Random(38)
    await _corpus(store, rng, 30)
    rows = await store.connection.rows(
        "SELECT c.id, c.term_count, t.lexeme, cardinality(t.positions) FROM chunks c, "
        "unnest(c.terms) t WHERE c.level = 'snippet'")
    lengths = {chunk: length for chunk, length, _, _ in rows}
    tfs = {(chunk, term): tf for chunk, _, term, tf in rows}
    snippets, avgdl = len(lengths), sum(lengths.values()) / len(lengths)
    index = store.index
    for _ in range(20):
        query = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        terms = dict(await store.connection.rows(
            "SELECT lexeme, cardinality(positions) FROM unnest(to_tsvector('english', %s))",
            (query,)))
        frequency = {t: sum(1 for (_, term) in tfs if term == t) for t in terms}
        for ranking in ("bm25", "bm25_exact"):
            index.ranking = ranking
            for chunk, score in await index.search_text("default", query, 10):
                expected = sum(
                    weight * math.log((snippets - frequency[t] + 0.5) / (frequency[t] + 0.5)
                                      + 1)
                    * tfs[(chunk, t)] * (K1 + 1) / (tfs[(chunk, t)] + K1 * (
                        1 - B + B * lengths[chunk] / avgdl))
                    for t, weight in terms.items() if (chunk, t) in tfs)
                assert score == pytest.approx(expected, abs=1e-9), (ranking, query, chunk)


async def test_a_cut_common_term_keeps_the_rare_terms_best_snippets(
        store: PostgresKnowledgeStore) -> None:
    rng = random.Random(36)
    await _corpus(store, rng, 60)
    index = store.index
    index.depth = 20  # "tide" is in all 300 snippets: cut to its best 20
    for rare in ("shingle", "curlew", "plover"):
        index.ranking = "bm25_exact"
        exact = await index.search_text("default", f"tide {rare}", 5)
        index.ranking = "bm25"
        bounded = await index.search_text("default", f"tide {rare}", 5)
        # A rare term's postings are read whole; only tide's small weight may reorder.
        assert {i for i, _ in bounded} & {i for i, _ in exact}, rare
        assert len(bounded) == len(exact)
    # The common term alone: its best 20 postings by impact at the reference length
    # (100 terms; these snippets average about 25) hold most of its true top 10.
    alone = {i for i, _ in await index.search_text("default", "tide", 10)}
    index.ranking = "bm25_exact"
    full = {i for i, _ in await index.search_text("default", "tide", 10)}
    assert len(alone & full) >= 7, (alone, full)


async def test_filters_that_empty_the_bounded_ranking_fall_back_to_the_full_one(
        store: PostgresKnowledgeStore) -> None:
    rng = random.Random(37)
    await _corpus(store, rng, 60)
    index = store.index
    index.depth = 10
    # Document 59's snippets are the only ones passing, and few of "tide"'s best ten.
    only = SearchFilters(document_ids=frozenset({"doc_59"}))
    found = await index.search_text("default", "tide", 5, only)
    assert len(found) == 5 and all(i.startswith("doc_59.") for i, _ in found)


async def test_a_version_1_store_is_indexed_again_when_opened(postgres_schema_url: str
                                                              ) -> None:
    """A store written before the postings existed: its snippets' terms lose the markers
    and their postings are made, in the migration, once."""
    opened = await PostgresKnowledgeStore.connect(postgres_schema_url)
    await _add(opened, 1, (_snippet(1, 0, "Herons wade the weir.", "Birds", ()),))
    async with opened.connection.pool.connection() as c:
        # Back to what version 1 was: markers among the words, no postings.
        await c.execute("DROP TRIGGER chunks_postings_added ON chunks")
        await c.execute("DROP TRIGGER chunks_postings_removed ON chunks")
        await c.execute("DROP TABLE text_postings")
        for name in ("sheaf_postings_added", "sheaf_postings_removed"):
            await c.execute(f"DROP FUNCTION {name}()")  # type: ignore[arg-type]
        await c.execute("DROP FUNCTION sheaf_postings_of(TEXT, TEXT, tsvector, INTEGER)")
        await c.execute("UPDATE chunks SET terms = to_tsvector('english', retrieval_text)")
        await c.execute("UPDATE sheaf_schema SET version = 1")
    await opened.aclose()
    again = await PostgresKnowledgeStore.connect(postgres_schema_url)
    try:
        assert await again.index.search_text("default", "section", 5) == []
        assert [i for i, _ in await again.index.search_text("default", "heron", 5)] == [
            "doc_1.v1:snippet:0"]
        rows = await again.connection.rows("SELECT count(*) FROM text_postings")
        assert rows[0][0] >= 3  # heron, wade, weir, bird
        assert (await again.catalogue.status()).schema_version == schema.SCHEMA_VERSION
    finally:
        await again.aclose()


async def test_removed_snippets_leave_no_postings(store: PostgresKnowledgeStore) -> None:
    await _add(store, 1, (_snippet(1, 0, "Herons wade the weir.", "Birds", ()),))
    async with store.storage().unit_of_work() as work:
        work.versions.remove("default", "doc_1")
        await work.commit()
    assert await store.connection.rows("SELECT count(*) FROM text_postings") == [(0,)]
    assert await store.index.search_text("default", "heron", 5) == []


async def test_a_version_3_store_has_its_impacts_made_again_at_the_new_k1(
        postgres_schema_url: str) -> None:
    """Version 3 ordered each term's postings by their impact at k1 1.2; opened by this
    sheaf, every stored impact and every new one is made at the domain's k1."""
    def impact(k1: float) -> str:
        return (f"(tf::float8 / (tf + {k1} * ({1 - B} + {B} * length / "
                f"{text_ranking.REFERENCE_LENGTH}.0)))::real")

    opened = await PostgresKnowledgeStore.connect(postgres_schema_url)
    await _add(opened, 1, (_snippet(1, 0, "Herons wade the weir, herons wait.", "Birds", ()),))
    async with opened.connection.pool.connection() as c:
        await c.execute(schema._postings_of("CREATE OR REPLACE", 1.2, B))  # type: ignore[arg-type]
        await c.execute(f"UPDATE text_postings SET impact = {impact(1.2)}")  # type: ignore[arg-type]
        await c.execute("UPDATE sheaf_schema SET version = 3")
    await opened.aclose()
    again = await PostgresKnowledgeStore.connect(postgres_schema_url)
    try:
        await _add(again, 2, (_snippet(2, 0, "Egrets wade at dusk.", "Birds", ()),))
        rows = await again.connection.rows(
            f"SELECT chunk_id, impact, {impact(K1)}, {impact(1.2)} FROM text_postings")
        assert {chunk for chunk, *_ in rows} == {"doc_1.v1:snippet:0", "doc_2.v1:snippet:0"}
        assert all(stored == now != before for _, stored, now, before in rows), rows
        assert (await again.catalogue.status()).schema_version == schema.SCHEMA_VERSION
    finally:
        await again.aclose()
