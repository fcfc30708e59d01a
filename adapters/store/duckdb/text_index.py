"""The DuckDB store's full-text index: sheaf's own postings tables, written in the same
transaction as the snippets they index (ADR-0021).

Terms are made exactly as DuckDB's fts extension makes them (its tokenizer expression,
its English stopword list read from the extension, its Snowball `stem()`), so a query
ranks as it did when the extension's index was rebuilt before every search. BM25 (the
domain's `bm25.K1` and `B`) takes its statistics from the space's snippets: their number
and total length are one row of `text_spaces`, a term's document frequency is counted
over the postings the query reads anyway.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

import duckdb

from ....domain.analysis.retrieval_prefix import marker_free
from ....domain.search.bm25 import K1, B

STEMMER = "english"
"""The Snowball stemmer terms are made with (`stem()` of the fts extension)."""

# The fts extension's own `tokenize` macro (stemmer 'english', stopwords 'english',
# strip_accents 1, lower 1, its default `ignore` pattern), as its index builds it.
_IGNORED = r"""'[0-9!@#$%^&*()_+={}\[\]:;<>,.?~\\/\|''''"`-]+'"""


def tokens_sql(text: str) -> str:
    """The SQL list of the raw tokens of the VARCHAR expression `text`."""
    return (f"string_split_regex(regexp_replace(lower(strip_accents(CAST({text} AS VARCHAR))), "
            rf"{_IGNORED}, ' ', 'g'), '\s+')")


STOPWORD_SEED = (
    # The extension keeps its stopword list only inside an index it builds: build one on
    # an empty table, copy the list, drop it. Run outside a transaction (the extension's
    # drop refuses inside the one that created it); every step can be repeated.
    "CREATE OR REPLACE TABLE sheaf_stopword_seed (id VARCHAR, body VARCHAR)",
    "PRAGMA create_fts_index('sheaf_stopword_seed', 'id', 'body', stopwords = 'english', "
    "overwrite = 1)",
    "CREATE OR REPLACE TABLE text_stopwords AS SELECT DISTINCT sw AS word "
    "FROM fts_main_sheaf_stopword_seed.stopwords",
    "PRAGMA drop_fts_index('sheaf_stopword_seed')",
    "DROP TABLE sheaf_stopword_seed",
)

SCHEMA = (
    # A snippet indexed: `length` is its number of terms (stopwords out), as BM25 reads it.
    # Its version and document are its chunk's (until schema 12 they were copied here; a
    # store migrating from before 6 or 9 makes the table as the indexing code writes it).
    """CREATE TABLE text_docs (
        docid BIGINT NOT NULL, chunk_id VARCHAR NOT NULL, space VARCHAR NOT NULL,
        length INTEGER NOT NULL)""",
    """CREATE TABLE text_terms (term VARCHAR PRIMARY KEY, termid BIGINT NOT NULL)""",
    # Appended in docid order, then now and again rewritten in termid order
    # (`cluster_postings`) so a query reads only its terms' row groups; the document
    # length rides along so scoring needs no join.
    """CREATE TABLE text_postings (
        termid BIGINT NOT NULL, docid BIGINT NOT NULL, space VARCHAR NOT NULL,
        tf INTEGER NOT NULL, length INTEGER NOT NULL)""",
    """CREATE TABLE text_spaces (
        space VARCHAR PRIMARY KEY, docs BIGINT NOT NULL, length BIGINT NOT NULL)""",
    # How many postings were in termid order when the table was last sorted.
    """CREATE TABLE text_clustering (sorted_rows BIGINT NOT NULL)""",
    "INSERT INTO text_clustering VALUES (0)",
    # The extension's index, rebuilt before each search until now, is not needed again.
    "DROP SCHEMA IF EXISTS fts_main_chunks CASCADE",
)

REMADE = (
    # The index emptied, to be made again from every stored snippet by `index_all` (when
    # what a snippet's terms are made of changes); the stopword list stays.
    *(f"DROP TABLE {table}" for table in ("text_docs", "text_terms", "text_postings",
                                          "text_spaces", "text_clustering")),
    *SCHEMA[:-1],
)

_SNIPPET_SHAPE = json.dumps([{"id": "VARCHAR", "text": "VARCHAR", "space": "VARCHAR"}])


class Snippet(NamedTuple):
    """A snippet to index: its chunk id, retrieval text and space."""

    chunk_id: str
    text: str
    space: str


def index_snippets_of(c: duckdb.DuckDBPyConnection, snippets: Sequence[Snippet]) -> None:
    """Index snippets of any number of versions and spaces in one set of statements,
    inside the caller's transaction: docids follow the order given. A snippet's terms are
    those of its retrieval text without the prefix's markers (`marker_free`)."""
    if not snippets:
        return
    c.execute(
        "CREATE OR REPLACE TEMP TABLE sheaf_new_docs AS SELECT r.id AS chunk_id, r.text, "
        "r.space, "
        "(SELECT coalesce(max(docid), 0) FROM text_docs) + row_number() OVER () AS docid "
        "FROM (SELECT unnest(from_json(?::JSON, ?), recursive := true)) AS r",
        [json.dumps([{"id": s.chunk_id, "text": marker_free(s.text), "space": s.space}
                     for s in snippets]), _SNIPPET_SHAPE])
    c.execute(
        "CREATE OR REPLACE TEMP TABLE sheaf_new_terms AS SELECT docid, stem(w, ?) AS term "
        f"FROM (SELECT docid, unnest({tokens_sql('text')}) AS w FROM sheaf_new_docs) "
        "WHERE w <> '' AND w NOT IN (SELECT word FROM text_stopwords)", [STEMMER])
    c.execute(
        "CREATE OR REPLACE TEMP TABLE sheaf_new_lengths AS SELECT n.docid, n.chunk_id, "
        "n.space, coalesce(l.length, 0)::INTEGER AS length "
        "FROM sheaf_new_docs n LEFT JOIN (SELECT docid, count(*) AS length "
        "FROM sheaf_new_terms GROUP BY docid) l USING (docid)")
    c.execute("INSERT INTO text_docs SELECT docid, chunk_id, space, length "
              "FROM sheaf_new_lengths ORDER BY docid")
    # The new terms by a join that hashes the batch's few terms and probes the
    # vocabulary with them: `NOT IN` hashed the whole vocabulary on every write (at 500k
    # terms 14 ms against 6).
    c.execute(
        "INSERT INTO text_terms SELECT term, (SELECT coalesce(max(termid), 0) FROM text_terms) "
        "+ row_number() OVER (ORDER BY term) FROM (SELECT DISTINCT n.term FROM "
        "sheaf_new_terms n LEFT JOIN text_terms t USING (term) WHERE t.termid IS NULL)")
    c.execute(
        "INSERT INTO text_postings SELECT t.termid, n.docid, any_value(l.space), "
        "count(*)::INTEGER, any_value(l.length) FROM sheaf_new_terms n "
        "JOIN text_terms t USING (term) JOIN sheaf_new_lengths l USING (docid) "
        "GROUP BY t.termid, n.docid ORDER BY n.docid, t.termid")
    # A space's totals grow by the batch's; a space new to the index gets its row (the
    # table has no key to upsert by).
    c.execute(
        "UPDATE text_spaces SET docs = text_spaces.docs + n.docs, length = text_spaces.length "
        "+ n.length FROM (SELECT space, count(*) AS docs, coalesce(sum(length), 0) AS length "
        "FROM sheaf_new_lengths GROUP BY space) n WHERE text_spaces.space = n.space")
    c.execute(
        "INSERT INTO text_spaces SELECT space, count(*), coalesce(sum(length), 0) "
        "FROM sheaf_new_lengths WHERE space NOT IN (SELECT space FROM text_spaces) "
        "GROUP BY space")
    for table in ("sheaf_new_lengths", "sheaf_new_terms", "sheaf_new_docs"):
        c.execute(f"DROP TABLE {table}")


def unindex(c: duckdb.DuckDBPyConnection, column: str, value: str) -> None:
    """Take out of the index every snippet whose `column` (version_id or document_id)
    is `value`, inside the caller's transaction, before its chunks are deleted."""
    rows = c.execute("SELECT space, docid, length FROM text_docs WHERE chunk_id IN (SELECT "
                     f"id FROM chunks WHERE {column} = ? AND level = 'snippet')",
                     [value]).fetchall()
    if not rows:
        return
    docids = [int(r[1]) for r in rows]
    # The constant range lets the scan skip the row groups of every other write.
    c.execute("DELETE FROM text_postings WHERE docid BETWEEN ? AND ? AND docid IN "
              "(SELECT unnest(from_json(?, '[\"BIGINT\"]')))",
              [min(docids), max(docids), json.dumps(docids)])
    c.execute("DELETE FROM text_docs WHERE docid BETWEEN ? AND ? AND docid IN "
              "(SELECT unnest(from_json(?, '[\"BIGINT\"]')))",
              [min(docids), max(docids), json.dumps(docids)])
    taken: dict[str, tuple[int, int]] = {}
    for space, _, length in rows:
        docs, total = taken.get(space, (0, 0))
        taken[space] = (docs + 1, total + int(length))
    for space, (docs, total) in taken.items():
        c.execute("UPDATE text_spaces SET docs = docs - ?, length = length - ? WHERE space = ?",
                  [docs, total, space])


UNSORTED_SHARE = 0.25
"""Postings appended since the last sort, as a share of those sorted, that trigger the
next sort (amortised: about a tenth of a write's own cost)."""


def cluster_postings(c: duckdb.DuckDBPyConnection, *, always: bool = False) -> bool:
    """Rewrite the postings in termid order once enough were appended since the last
    time (or `always`), inside the caller's transaction: a query's terms then sit in
    few row groups, which the scan alone reads (zone maps), instead of all of them
    (at 100k snippets, 5M postings: a full scan cost 0.2 s a query). True if it sorted."""
    row = c.execute("SELECT (SELECT count(*) FROM text_postings), sorted_rows "
                    "FROM text_clustering").fetchone()
    total, sorted_rows = (int(row[0]), int(row[1])) if row else (0, 0)
    if not always and total - sorted_rows <= max(UNSORTED_SHARE * sorted_rows, 20_000):
        return False
    c.execute("CREATE TABLE text_postings_sorted AS SELECT * FROM text_postings "
              "ORDER BY termid, docid")
    c.execute("DROP TABLE text_postings")
    c.execute("ALTER TABLE text_postings_sorted RENAME TO text_postings")
    c.execute("UPDATE text_clustering SET sorted_rows = ?", [total])
    return True


def forget_unused_terms(c: duckdb.DuckDBPyConnection) -> None:
    """Delete the terms no snippet holds any more (a scan of every posting: done when a
    removal rewrites the file anyway)."""
    c.execute("DELETE FROM text_terms WHERE termid NOT IN "
              "(SELECT DISTINCT termid FROM text_postings)")


def index_all(c: duckdb.DuckDBPyConnection) -> None:
    """Index every stored snippet, into an empty index: when a store written before this
    index, or before its terms last changed, opens (migrations 6 and 9, which read the
    chunks as they were before schema 10: each retrieval text whole in its row)."""
    rows = c.execute("SELECT id, retrieval_text, space FROM chunks "
                     "WHERE level = 'snippet' ORDER BY version_id, idx").fetchall()
    index_snippets_of(c, [Snippet(*(str(v) for v in row)) for row in rows])
    cluster_postings(c, always=True)


def bm25_scores(c: duckdb.DuckDBPyConnection, space: str, query: str
                ) -> tuple[str, list[object]] | None:
    """A `scored(chunk_id, score)` CTE over the space's snippets holding a query term,
    with its parameters; None when no query term is indexed in any space.

    Each query term counts as often as the query repeats it: on CISI, whose queries
    repeat their key words, counting them once cost 0.07 nDCG@10."""
    weights = c.execute(
        "SELECT t.termid, q.weight FROM (SELECT term, count(*) AS weight FROM (SELECT "
        f"stem(unnest({tokens_sql('?')}), ?) AS term) GROUP BY term) q "
        "JOIN text_terms t USING (term) ORDER BY t.termid", [query, STEMMER]).fetchall()
    if not weights:
        return None
    # Integer literals, not a bound list: the scan then filters on them itself.
    termids = ", ".join(str(int(t)) for t, _ in weights)
    counts = ", ".join(str(int(w)) for _, w in weights)
    scores = f"""
WITH p AS MATERIALIZED (SELECT termid, docid, tf, length FROM text_postings
                        WHERE space = ? AND termid IN ({termids})),
qt AS (SELECT unnest([{termids}]) AS termid, unnest([{counts}]) AS weight),
df AS (SELECT termid, count(*) AS df FROM p GROUP BY termid),
st AS (SELECT docs AS num_docs, length::DOUBLE / greatest(docs, 1) AS avgdl
       FROM text_spaces WHERE space = ?),
bm25 AS (
    SELECT p.docid, sum(qt.weight * ln((st.num_docs - df.df + 0.5) / (df.df + 0.5) + 1)
        * p.tf * {K1 + 1} / (p.tf + {K1} * ({1 - B} + {B} * p.length / greatest(st.avgdl, 1e-9))))
        AS score
    FROM p JOIN qt USING (termid) JOIN df USING (termid) CROSS JOIN st
    GROUP BY p.docid),
scored AS (SELECT d.chunk_id, s.score FROM bm25 s JOIN text_docs d USING (docid))
"""
    return scores, [space, space]
