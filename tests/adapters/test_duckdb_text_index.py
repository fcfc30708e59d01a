"""The DuckDB store's persisted full-text index: written with the snippets, it agrees
with them after any sequence of writes, removals and reindexing, and ranks exactly as the
fts extension's own index built over the same snippets."""

from __future__ import annotations

import math
from pathlib import Path

import anyio
import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb import text_index
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.packaged_extensions import load_packaged_extension
from sheaf.adapters.store.duckdb.rows import whole_chunks
from sheaf.domain.analysis.retrieval_prefix import PREFIX_MARKERS, marker_free
from sheaf.domain.search.bm25 import K1, B
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from tests.adapters.duckdb_schema_8 import as_schema_8
from tests.contract.test_knowledge_store_contract import (
    remove,
    save,
    text_chunk,
    version,
    write,
)
from tests.property_examples import examples

pytestmark = pytest.mark.anyio

WORDS = ("tides", "tide", "seagrass", "meadows", "the", "foxes", "fox's", "sleeping",
         "Über", "naïve", "coast", "coasts", "3.14", "e.g.", "don't", "RUNNING", "runs",
         "café", "x-ray", "and")

# Words of distinct stems: the extension counts a query term once however often it comes.
QUERY_WORDS = ("tides", "seagrass", "meadows", "foxes", "sleeping", "Über", "coast",
               "running", "café", "the", "x-ray")


def source(doc: str) -> SourceRef:
    return SourceRef(SourceKind.URL, f"https://journal.example/{doc}",
                     f"https://journal.example/{doc}")


def snippet_texts(c: duckdb.DuckDBPyConnection) -> str:
    """A query of each snippet's id, space and retrieval text, as a store's reads make
    it whole (in Python: a section's text may be its held Markdown's), from a temporary
    table made afresh."""
    spaces = dict(c.execute("SELECT id, space FROM chunks WHERE level = 'snippet'").fetchall())
    rows = [(ch.id, spaces[ch.id], ch.retrieval_text)
            for ch in whole_chunks(c, "c.level = 'snippet'")]
    c.execute("CREATE OR REPLACE TEMP TABLE snippet_texts (id VARCHAR, space VARCHAR, "
              "retrieval_text VARCHAR)")
    if rows:
        c.executemany("INSERT INTO snippet_texts VALUES (?, ?, ?)", rows)
    return "SELECT id, space, retrieval_text FROM snippet_texts"


def fresh_postings(c: duckdb.DuckDBPyConnection) -> set[tuple[str, str, str, int, int]]:
    """(space, chunk id, term, tf, length) recomputed from the chunks themselves."""
    text = f"regexp_replace(retrieval_text, '{PREFIX_MARKERS}', '\\1', 'g')"
    words = (f"SELECT id, space, unnest({text_index.tokens_sql(text)}) AS w "
             f"FROM ({snippet_texts(c)})")
    terms = (f"SELECT id, space, stem(w, 'english') AS term FROM ({words}) "
             "WHERE w <> '' AND w NOT IN (SELECT word FROM text_stopwords)")
    lengths = dict(c.execute(f"SELECT id, count(*) FROM ({terms}) GROUP BY id").fetchall())
    return {(str(s), str(i), str(t), int(tf), int(lengths[i])) for s, i, t, tf in c.execute(
        f"SELECT space, id, term, count(*) FROM ({terms}) GROUP BY ALL").fetchall()}


def assert_index_agrees(store: DuckDbKnowledgeStore) -> None:
    store.connection.load_full_text_extension()  # `stem()` below; the store loads it on first use
    c = store.connection.writer
    snippets = {(str(r[0]), str(r[1])) for r in c.execute(
        "SELECT space, id FROM chunks WHERE level = 'snippet'").fetchall()}
    docs = c.execute("SELECT space, chunk_id, docid FROM text_docs").fetchall()
    assert {(s, i) for s, i, _ in docs} == snippets
    assert len({d for _, _, d in docs}) == len(docs)  # one docid per snippet
    stored = {(str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in c.execute(
        "SELECT p.space, d.chunk_id, t.term, p.tf, p.length FROM text_postings p "
        "JOIN text_docs d USING (docid) JOIN text_terms t USING (termid)").fetchall()}
    assert stored == fresh_postings(c)
    assert c.execute("SELECT count(*) FROM text_postings p ANTI JOIN text_docs d "
                     "USING (docid)").fetchone() == (0,)
    totals = {str(r[0]): (int(r[1]), int(r[2])) for r in c.execute(
        "SELECT space, count(*), sum(length) FROM text_docs GROUP BY space").fetchall()}
    kept = {str(r[0]): (int(r[1]), int(r[2])) for r in c.execute(
        "SELECT space, docs, length FROM text_spaces WHERE docs > 0").fetchall()}
    assert kept == totals
    assert c.execute("SELECT count(*) FROM text_spaces WHERE docs = 0 AND length <> 0"
                     ).fetchone() == (0,)


def extension_scores(store: DuckDbKnowledgeStore, space: str, query: str
                     ) -> dict[str, float]:
    """BM25 of the fts extension's own index built over the space's snippets."""
    snippets = store.connection.writer.execute(
        f"SELECT id, retrieval_text FROM ({snippet_texts(store.connection.writer)}) "
        "WHERE space = ?",
        [space]).fetchall()
    if not snippets:
        return {}
    with duckdb.connect() as c:
        assert load_packaged_extension(c, "fts")
        c.execute("CREATE TABLE probe (id VARCHAR, body VARCHAR)")
        c.executemany("INSERT INTO probe VALUES (?, ?)",
                      [[i, marker_free(str(t))] for i, t in snippets])
        c.execute("PRAGMA create_fts_index('probe', 'id', 'body', stemmer = 'english', "
                  "stopwords = 'english')")
        rows = c.execute("SELECT id, fts_main_probe.match_bm25(id, ?, k := ?, b := ?) AS s "
                         "FROM probe WHERE s IS NOT NULL", [query, K1, B]).fetchall()
    return {str(i): float(s) for i, s in rows}


async def assert_ranks_as_the_extension(store: DuckDbKnowledgeStore, space: str,
                                        query: str) -> None:
    ours = dict(await store.search_index.search_text(space, query, 1000))
    theirs = extension_scores(store, space, query)
    assert ours.keys() == theirs.keys()
    # The extension's idf takes `log`, base 10 in DuckDB; sheaf's the natural logarithm,
    # as BM25 is written: every score is the same multiple, the ranking the same.
    for chunk_id, score in ours.items():
        assert score == pytest.approx(theirs[chunk_id] * math.log(10), rel=1e-9)


async def test_the_index_follows_writes_removals_and_reindexing(tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await save(store, version(1, "s1"), source("a"), chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),
        text_chunk("doc_1.v1", 1, "foxes wait for people to sleep")))
    await save(store, version(1, "s2", doc="doc_2"), source("b"), chunks=(
        text_chunk("doc_2.v1", 0, "tides and tides and seagrass light"),))
    await save(store, version(1, "s3", doc="doc_3", space="other"), source("c"), chunks=(
        text_chunk("doc_3.v1", 0, "seagrass tides everywhere"),))
    assert_index_agrees(store)
    await assert_ranks_as_the_extension(store, "default", "seagrass tides")
    await save(store, version(2, "s4"), source("a"), chunks=(
        text_chunk("doc_1.v2", 0, "zebra crossings at the coast"),))
    await write(store, lambda w: w.chunks.replace("default", "doc_2.v1", (
        text_chunk("doc_2.v1", 0, "tides rebuilt"), text_chunk("doc_2.v1", 1, "coast")), None))
    assert_index_agrees(store)
    await remove(store, "default", "doc_2")  # compacts the file: the index survives it
    assert_index_agrees(store)
    await assert_ranks_as_the_extension(store, "default", "zebra coast tides")
    assert [i for i, _ in await store.search_index.search_text("default", "tides", 10)] == []
    await store.aclose()
    reopened = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    assert_index_agrees(reopened)
    assert [i for i, _ in await reopened.search_index.search_text("default", "zebra", 10)] == [
        "doc_1.v2:snippet:0"]
    await reopened.aclose()


async def test_a_schema_5_store_gets_its_index_built_once(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), source("a"), chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),))
    await store.aclose()
    with duckdb.connect(str(path)) as c:  # the store as schema 5 left it: no postings
        as_schema_8(c)
        for table in ("text_docs", "text_terms", "text_postings", "text_spaces",
                      "text_stopwords", "text_clustering"):
            c.execute(f"DROP TABLE {table}")
        for column in ("positive", "negative", "reaches"):  # schema 7's
            c.execute(f"ALTER TABLE fingerprints DROP COLUMN {column}")
        c.execute("DROP TABLE held_blobs")  # schema 8's
        c.execute("UPDATE sheaf_schema SET version = 5")
    reopened = DuckDbKnowledgeStore(path)
    assert_index_agrees(reopened)
    assert [i for i, _ in await reopened.search_index.search_text("default", "meadow", 10)] == [
        "doc_1.v1:snippet:0"]
    await reopened.aclose()


async def test_a_schema_8_store_loses_the_prefix_markers_as_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kb.duckdb"
    with monkeypatch.context() as schema_8:  # its index made of the whole retrieval text
        schema_8.setattr(text_index, "marker_free", lambda text: text)
        store = DuckDbKnowledgeStore(path)
        await save(store, version(1, "s1"), source("a"), chunks=(
            text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),))
        assert await store.search_index.search_text("default", "doc", 10) != []
        await store.aclose()
    with duckdb.connect(str(path)) as c:
        as_schema_8(c)
        c.execute("UPDATE sheaf_schema SET version = 8")
    reopened = DuckDbKnowledgeStore(path)
    assert_index_agrees(reopened)
    assert await reopened.search_index.search_text("default", "doc", 10) == []
    assert [i for i, _ in await reopened.search_index.search_text("default", "meadow", 10)] == [
        "doc_1.v1:snippet:0"]
    await reopened.aclose()


_OPERATION = st.one_of(
    st.tuples(st.just("save"), st.integers(0, 3), st.sampled_from(["default", "other"]),
              st.lists(st.lists(st.sampled_from(WORDS), max_size=8), max_size=3)),
    st.tuples(st.just("remove"), st.integers(0, 3)),
    st.tuples(st.just("reindex"), st.integers(0, 3),
              st.lists(st.lists(st.sampled_from(WORDS), max_size=8), max_size=3)))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=st.lists(_OPERATION, min_size=1, max_size=8),
       query=st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=4, unique=True))
def test_random_writes_and_removals_keep_index_and_chunks_agreeing(
        operations: list[tuple[object, ...]], query: list[str]) -> None:
    async def run() -> None:
        store = DuckDbKnowledgeStore(":memory:")
        current: dict[int, tuple[int, str]] = {}  # doc -> (version number, space)
        for operation in operations:
            doc = int(operation[1])  # type: ignore[call-overload]
            if operation[0] == "save":
                number = current.get(doc, (0, ""))[0] + 1
                space = current.get(doc, (0, str(operation[2])))[1]
                vid = f"doc_{doc}.v{number}"
                await save(store, version(number, f"s{doc}-{number}", doc=f"doc_{doc}",
                                          space=space), source(str(doc)), chunks=tuple(
                    text_chunk(vid, i, " ".join(words))
                    for i, words in enumerate(operation[3])))  # type: ignore[arg-type]
                current[doc] = (number, space)
            elif operation[0] == "remove" and doc in current:
                await remove(store, current.pop(doc)[1], f"doc_{doc}")
            elif operation[0] == "reindex" and doc in current:
                number, space = current[doc]
                vid = f"doc_{doc}.v{number}"
                chunks = tuple(text_chunk(vid, i, " ".join(words))
                               for i, words in enumerate(operation[2]))  # type: ignore[arg-type]
                await write(store, lambda w, s=space, v=vid, ch=chunks:
                            w.chunks.replace(s, v, ch, None))
        assert_index_agrees(store)
        for space in ("default", "other"):
            await assert_ranks_as_the_extension(store, space, " ".join(query))
        await store.aclose()

    anyio.run(run)
