"""BM25 over PostgreSQL's own text search: snippets keep their words as a tsvector
(English Snowball stems, English stopwords, the retrieval prefix's markers left out) and
as impact-ordered postings. A query reads at most `DEFAULT_DEPTH` postings of each of its
terms (`BOUNDED_BM25_SCORES`, ADR-0036); the exact ranking (`BM25_SCORES`: a GIN index
finds every snippet holding a query term, the score is computed from their tsvectors)
answers when the bounded one comes back short under filters.

PostgreSQL's `ts_rank_cd` was the alternative; it has no document frequency (a word in
every snippet weighs as much as a rare one), and on CISI it scored below BM25
(bench/retrieval_cisi.py --postgres prints both)."""

from __future__ import annotations

from ....domain.search.bm25 import K1, B
from ....domain.search.search_request import SearchFilters
from .filters import filter_sql

REFERENCE_LENGTH = 100
"""The snippet length (in terms) a posting's `impact` is computed at: it orders a term's
postings, the score itself uses the space's real mean length."""
DEFAULT_DEPTH = 2000
"""How many postings of each query term a bounded query reads, best impact first
(ADR-0036): a term in fewer snippets is read whole (its ranking is exact); a term in
more loses its contribution to the snippets beyond its first DEFAULT_DEPTH (those where
it weighs least)."""


def bm25_term(weight: str, df: str, tf: str, length: str) -> str:
    """One query term's BM25 in one snippet, as SQL over the named columns and the
    `%(snippets)s` and `%(avgdl)s` parameters. Every constant is double precision: a
    numeric one (`2.2`) makes the sum numeric, and PostgreSQL converts between numeric
    and float through text: 5-7 µs a posting, 14 of a common word's 16 ms at 100k
    snippets."""
    return (f"{weight} * ln((%(snippets)s::float8 - {df} + 0.5::float8) / "
            f"({df} + 0.5::float8) + 1::float8) * {tf} * {K1 + 1}::float8 / ({tf} + "
            f"{K1}::float8 * ({1 - B}::float8 + {B}::float8 * {length} / "
            "%(avgdl)s::float8))")


# The query's terms with how often it repeats each (`weight`, as in the DuckDB store);
# the tsquery is built from the tsvector's own quoting of each lexeme, so any word the
# parser yields (quotes, backslashes, URLs) matches itself and nothing else. Each hit's
# tsvector is cut down to the query's lexemes before it is unnested (marked with weight
# A, then filtered on it): unnesting whole tsvectors and filtering the rows cost 60% more
# on CISI's long queries.
_QUERY_TERMS = """
q AS (SELECT lexeme AS term, cardinality(positions) AS weight
      FROM unnest(to_tsvector('english', %(query)s::text))),
hits AS (SELECT c.id, c.terms, c.term_count FROM chunks c
         WHERE c.space = %(space)s AND c.level = 'snippet' AND c.terms @@ (
             SELECT string_agg(array_to_tsvector(ARRAY[term])::text, ' | ')::tsquery
             FROM q)),
tf AS (SELECT h.id, h.term_count, t.lexeme AS term, cardinality(t.positions) AS tf
       FROM hits h CROSS JOIN LATERAL unnest(ts_filter(setweight(
           h.terms, 'A', (SELECT array_agg(term) FROM q)), '{a}')) t),
df AS (SELECT term, count(*) AS df FROM tf GROUP BY term)
"""

BM25_SCORES = f"""
WITH {_QUERY_TERMS},
scored AS (
    SELECT tf.id AS chunk_id, sum({bm25_term("q.weight", "df.df", "tf.tf", "tf.term_count")})
        AS score
    FROM tf JOIN q USING (term) JOIN df USING (term)
    GROUP BY tf.id)
"""

# The same BM25 over the postings, reading at most %(depth)s postings per query term in
# impact order through `text_postings_impact` (an index-only range each): the work of a
# query is bounded by its number of terms times the depth, not by how many snippets hold
# them. A term's number of snippets is counted no further than one past the depth: exact
# for the terms read whole; a term beyond it (cut) takes its count from %(kept_*)s (what
# the caller kept of an earlier count), else is counted whole, and is returned to be kept.
BOUNDED_BM25_SCORES = f"""
WITH q AS MATERIALIZED (
    SELECT t.lexeme AS term, cardinality(t.positions) AS weight,
           (SELECT count(*) FROM (SELECT 1 FROM text_postings p
                                  WHERE p.space = %(space)s AND p.term = t.lexeme
                                  LIMIT %(depth)s + 1) d) AS seen
    FROM unnest(to_tsvector('english', %(query)s::text)) t),
f AS MATERIALIZED (
    SELECT q.term, q.weight, q.seen,
           CASE WHEN q.seen <= %(depth)s THEN q.seen
                ELSE coalesce(k.df, (SELECT count(*) FROM text_postings p
                                     WHERE p.space = %(space)s AND p.term = q.term))
           END AS df
    FROM q LEFT JOIN unnest(%(kept_terms)s::text[], %(kept_dfs)s::bigint[])
                     AS k(term, df) USING (term)),
tf AS (SELECT f.term, t.chunk_id, t.tf, t.length FROM f CROSS JOIN LATERAL (
           SELECT p.chunk_id, p.tf, p.length FROM text_postings p
           WHERE p.space = %(space)s AND p.term = f.term
           ORDER BY p.impact DESC LIMIT %(depth)s) t),
scored AS (
    SELECT tf.chunk_id, sum({bm25_term("f.weight", "f.df", "tf.tf", "tf.length")}) AS score
    FROM tf JOIN f USING (term)
    GROUP BY tf.chunk_id)
"""


def bounded_sql(filters: SearchFilters) -> tuple[str, dict[str, object]]:
    """The bounded ranking as one statement: rows ('hit', chunk id, score) best first,
    then ('cut', term, its number of snippets) for each term beyond the depth."""
    ranked, params = ranked_sql(BOUNDED_BM25_SCORES, filters)
    head, _, select = ranked.rpartition(" SELECT s.chunk_id,")
    return (f"{head}, ranked AS (SELECT s.chunk_id,{select}) "
            "SELECT 'hit', r.* FROM ranked r UNION ALL "
            "SELECT 'cut', f.term, f.df::float8 FROM f WHERE f.seen > %(depth)s"), params


# Cover density: PostgreSQL's own ranking, kept for the comparison in the benchmark.
COVER_DENSITY_SCORES = """
WITH q AS (SELECT lexeme AS term FROM unnest(to_tsvector('english', %(query)s::text))),
probe AS (SELECT string_agg(array_to_tsvector(ARRAY[term])::text, ' | ')::tsquery AS t
          FROM q),
scored AS (SELECT c.id AS chunk_id, ts_rank_cd(c.terms, probe.t, 1)::float8 AS score
           FROM chunks c, probe WHERE c.space = %(space)s AND c.level = 'snippet'
           AND c.terms @@ probe.t)
"""


ROUNDED = "round(s.score * 1e9::float8) / 1e9::float8"
"""A score rounded to nine places in double precision (a numeric round trip costs 7 µs a
candidate: text both ways)."""


def ranked_sql(scores: str, filters: SearchFilters) -> tuple[str, dict[str, object]]:
    """The best `%(limit)s` snippet ids from a `scored(chunk_id, score)` CTE, passing
    `filters`, with the filters' own parameters to bind beside the CTE's. Scores are
    rounded to nine places, ties broken by id: the same sum added in another order (the
    bounded and the full ranking) must not reorder them."""
    if filters.empty:
        return (f"{scores} SELECT s.chunk_id, {ROUNDED} AS score FROM scored s "
                "ORDER BY 2 DESC, s.chunk_id LIMIT %(limit)s"), {}
    versions, conditions, params = filter_sql(filters)
    return (f"{scores} SELECT s.chunk_id, {ROUNDED} AS score FROM scored s "
            f"JOIN chunks c ON c.id = s.chunk_id {versions}WHERE true{conditions} "
            "ORDER BY 2 DESC, s.chunk_id LIMIT %(limit)s"), params
