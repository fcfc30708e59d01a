"""The DuckDB store's held postings (`postings_matrix.py`) rank as the SQL over its
postings tables does, on generated corpora after any writes and removals, with every
filter; the query's terms are made as DuckDB makes them; and a held matrix never
outlives a change to the store (a write, a removal, a compaction)."""

from __future__ import annotations

import itertools
import string
from pathlib import Path
from unittest.mock import patch

import anyio
import attrs
import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb import postings_matrix, text_index
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.packaged_extensions import load_packaged_extension
from sheaf.adapters.store.duckdb.postings_matrix import PostingsMatrix
from sheaf.adapters.store.duckdb.query_terms import QueryTerms, ascii_tokens
from sheaf.adapters.store.duckdb.text_ranking import sql_ranking
from sheaf.domain.search.search_request import NO_FILTERS, SearchFilters
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from tests.contract.test_knowledge_store_contract import (
    remove,
    save,
    text_chunk,
    version,
    write,
)
from tests.property_examples import examples

pytestmark = pytest.mark.anyio

# Stems shared by several words, stopwords, a stopword's stem that is another word's term
# ("having" -> "have", which "haves" indexes), accents, punctuation and digits.
WORDS = ("tides", "tide", "tidal", "seagrass", "meadows", "meadow", "the", "and", "having",
         "haves", "foxes", "fox's", "sleeping", "Über", "uber", "naïve", "coast", "coasts",
         "3.14", "e.g.", "don't", "RUNNING", "runs", "café", "x-ray", "ray", "light",
         "a", "z")
SECTIONS = (None, "abstract", "results")


def source(doc: int) -> SourceRef:
    return SourceRef(SourceKind.URL, f"https://journal.example/{doc}",
                     f"https://journal.example/{doc}")


def groups(ranking: list[tuple[str, float]]) -> list[tuple[frozenset[str], float]]:
    """Runs of equal scores (to 1e-9: sums added in another order differ in the last
    bits) as sets of ids, with the run's first score."""
    found: list[tuple[set[str], float]] = []
    for chunk_id, score in ranking:
        if found and abs(score - found[-1][1]) <= 1e-9 * max(1.0, abs(score)):
            found[-1][0].add(chunk_id)
        else:
            found.append(({chunk_id}, score))
    return [(frozenset(ids), score) for ids, score in found]


def assert_same_ranking(ours: list[tuple[str, float]], reference: list[tuple[str, float]]
                        ) -> None:
    assert len(ours) == len(reference)
    theirs = groups(reference)
    at = 0
    for ids, score in theirs:  # the same ids in each run of ties, the same scores
        mine = ours[at:at + len(ids)]
        assert {i for i, _ in mine} == ids
        assert all(s == pytest.approx(score, rel=1e-9) for _, s in mine)
        at += len(ids)
    # Within exact ties the order is by id, as SQL's ORDER BY score DESC, chunk_id.
    for (a, sa), (b, sb) in itertools.pairwise(ours):
        assert sa > sb or (sa == sb and a < b)


def held_ranking(store: DuckDbKnowledgeStore, space: str, query: str, limit: int,
                 filters: SearchFilters = NO_FILTERS) -> list[tuple[str, float]]:
    c = store.connection.writer
    matrix = PostingsMatrix.load(c, space)
    allowed = None if filters.empty else {str(r[0]) for r in c.execute(
        "SELECT id FROM chunks WHERE space = ? AND level = 'snippet'", [space]).fetchall()
        if _passes(c, str(r[0]), filters)}
    return matrix.top(QueryTerms().weights(c, query), limit, allowed)


def _passes(c: duckdb.DuckDBPyConnection, chunk_id: str, filters: SearchFilters) -> bool:
    """A snippet passes the filters this test uses (documents, sections), judged here
    row by row rather than by the store's SQL."""
    document, section = c.execute("SELECT document_id, section_label FROM chunks WHERE id = ?",
                                  [chunk_id]).fetchone() or (None, None)
    if filters.document_ids and document not in filters.document_ids:
        return False
    if filters.section_labels and section not in filters.section_labels:
        return False
    return not (filters.excluded_section_labels and section in filters.excluded_section_labels)


_SNIPPET = st.tuples(st.lists(st.sampled_from(WORDS), max_size=10), st.sampled_from(SECTIONS))
_OPERATION = st.one_of(
    st.tuples(st.just("save"), st.integers(0, 5), st.sampled_from(["default", "other"]),
              st.lists(_SNIPPET, max_size=4)),
    st.tuples(st.just("remove"), st.integers(0, 5)))
_FILTERS = st.sampled_from([
    NO_FILTERS, SearchFilters(document_ids=frozenset({"doc_1", "doc_3"})),
    SearchFilters(section_labels=frozenset({"results"})),
    SearchFilters(excluded_section_labels=frozenset({"abstract"}))])


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(operations=st.lists(_OPERATION, min_size=1, max_size=10),
       query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
       limit=st.integers(1, 12), filters=_FILTERS)
def test_the_held_postings_rank_as_the_sql_after_any_writes(
        operations: list[tuple[object, ...]], query: list[str], limit: int,
        filters: SearchFilters) -> None:
    async def run() -> None:
        store = DuckDbKnowledgeStore(":memory:")
        current: dict[int, tuple[int, str]] = {}
        for operation in operations:
            doc = int(operation[1])  # type: ignore[call-overload]
            if operation[0] == "save":
                number = current.get(doc, (0, ""))[0] + 1
                space = current.get(doc, (0, str(operation[2])))[1]
                vid = f"doc_{doc}.v{number}"
                chunks = [attrs.evolve(text_chunk(vid, i, " ".join(words)), section_label=section)
                          for i, (words, section) in enumerate(operation[3])]  # type: ignore[arg-type]
                await save(store, version(number, f"s{doc}-{number}", doc=f"doc_{doc}",
                                          space=space), source(doc), chunks=tuple(chunks))
                current[doc] = (number, space)
            elif doc in current:
                await remove(store, current.pop(doc)[1], f"doc_{doc}")
        await store.connection.run(lambda _: None, writes=False)  # stem() loaded
        text = " ".join(query)
        for space in ("default", "other"):
            reference = sql_ranking(store.connection.writer, space, text, 1000, filters)
            assert_same_ranking(held_ranking(store, space, text, 1000, filters), reference)
            # The cut at `limit` keeps the best, ties at the boundary settled by id.
            full = held_ranking(store, space, text, 1000, filters)
            assert held_ranking(store, space, text, limit, filters) == full[:limit]
            # A term's kept ranking (made for common words) gives the same, each word
            # alone, asked three times: by partition, the order made, the order kept.
            for word in dict.fromkeys(query):
                single = sql_ranking(store.connection.writer, space, word, 1000, filters)
                with patch.object(postings_matrix, "ORDERED_FROM", 1):
                    matrix = PostingsMatrix.load(store.connection.writer, space)
                    weights = QueryTerms().weights(store.connection.writer, word)
                    for _ in range(3):
                        assert_same_ranking(matrix.top(weights, 1000), sql_ranking(
                            store.connection.writer, space, word, 1000, NO_FILTERS))
                        assert matrix.top(weights, limit) == matrix.top(weights, 1000)[:limit]
                assert_same_ranking(held_ranking(store, space, word, 1000, filters), single)
            # And through the port: the first search after the writes ranks by SQL, the
            # next loads the held matrix, the third ranks from it on the caller's thread
            # (no filter, every word stemmed before); all as the reference.
            for _ in range(3):
                assert_same_ranking(await store.search_index.search_text(
                    space, text, 1000, filters), reference)
        await store.aclose()

    anyio.run(run)


@settings(max_examples=examples(200), deadline=None)
@given(text=st.text(alphabet=string.printable + "\v\x00\x1f\x7f", max_size=60))
def test_ascii_queries_split_as_duckdb_splits_them(text: str) -> None:
    with duckdb.connect() as c:
        words = c.execute(f"SELECT {text_index.tokens_sql('?')}", [text]).fetchone()
    assert words is not None
    assert ascii_tokens(text) == [w for w in words[0] if w]


async def test_query_weights_stem_and_count_as_duckdb_does() -> None:
    with duckdb.connect() as c:
        assert load_packaged_extension(c, "fts")
        terms = QueryTerms()
        # Non-ASCII goes through DuckDB's own tokenizer; repeats count per word.
        assert terms.weights(c, "Tides tidal TIDE naïve Über-meadows") == {
            "tide": 2, "tidal": 1, "naiv": 1, "uber": 1, "meadow": 1}
        assert terms.weights(c, "the tides, the tides!") == {"the": 2, "tide": 2}
        assert terms.weights(c, "3.14 -- ''") == {}


async def test_a_held_matrix_never_outlives_a_change(tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    index = store.search_index

    async def ids(query: str) -> list[str]:
        return [i for i, _ in await index.search_text("default", query, 10)]

    await save(store, version(1, "s1"), source(1), chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),))
    for _ in range(3):  # SQL, then the matrix loaded, then held
        assert await ids("seagrass") == ["doc_1.v1:snippet:0"]
    await save(store, version(1, "s2", doc="doc_2"), source(2), chunks=(
        text_chunk("doc_2.v1", 0, "seagrass seagrass seagrass"),))
    for _ in range(3):
        assert await ids("seagrass") == ["doc_2.v1:snippet:0", "doc_1.v1:snippet:0"]
    await remove(store, "default", "doc_2")  # rewrites and reopens the file
    for _ in range(3):
        assert await ids("seagrass") == ["doc_1.v1:snippet:0"]
    await save(store, version(2, "s3"), source(1), chunks=(
        text_chunk("doc_1.v2", 0, "zebra crossings"),))
    await store.maintenance.compact()
    for _ in range(3):
        assert await ids("seagrass") == []
        assert await ids("zebra crossings") == ["doc_1.v2:snippet:0"]
    await store.aclose()


async def test_kept_snippets_and_citations_follow_every_write(tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    index, catalogue = store.search_index, store.catalogue
    snippet = "doc_1.v1:snippet:0"

    async def texts(space: str = "default") -> list[str]:
        return [c.text for c in await index.snippets(space, [snippet])]

    await save(store, version(1, "s1"), source(1), chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows"),))
    for _ in range(2):  # read, then kept
        assert await texts() == ["seagrass meadows"]
        assert await texts("other") == []  # a kept snippet is still only its space's
        assert (await catalogue.citations("default", ["doc_1"]))["doc_1"].title == "A title"
        assert await catalogue.citations("other", ["doc_1"]) == {}
    # The same id, new text: what was kept is not served again.
    await write(store, lambda w: w.chunks.replace("default", "doc_1.v1", (
        text_chunk("doc_1.v1", 0, "zebra crossings"),), None))
    assert await texts() == ["zebra crossings"]
    await save(store, version(2, "s2", title="Another title"), source(1), chunks=(
        text_chunk("doc_1.v2", 0, "zebra crossings"),))
    assert (await catalogue.citations("default", ["doc_1"]))["doc_1"].title == "Another title"
    await remove(store, "default", "doc_1")
    assert await texts() == []
    assert await catalogue.citations("default", ["doc_1"]) == {}
    await store.aclose()


async def test_a_kept_term_ranking_breaks_exact_ties_by_id() -> None:
    store = DuckDbKnowledgeStore(":memory:")
    # Equal texts score exactly alike; ids inserted out of order.
    for doc in (3, 1, 2):
        await save(store, version(1, f"s{doc}", doc=f"doc_{doc}"), source(doc), chunks=(
            text_chunk(f"doc_{doc}.v1", 0, "tides and meadows"),
            text_chunk(f"doc_{doc}.v1", 1, "tides")))
    c = store.connection.writer
    reference = sql_ranking(c, "default", "tides", 1000, NO_FILTERS)
    with patch.object(postings_matrix, "ORDERED_FROM", 1):
        matrix = PostingsMatrix.load(c, "default")
        for _ in range(3):  # by partition, the order made, the order kept
            ranked = matrix.top(QueryTerms().weights(c, "tides"), 1000)
            assert [i for i, _ in ranked] == [i for i, _ in reference]
            assert [s for _, s in ranked] == pytest.approx([s for _, s in reference])
            assert [i for i, _ in matrix.top({"tide": 1}, 4)] == [i for i, _ in reference[:4]]
    await store.aclose()
