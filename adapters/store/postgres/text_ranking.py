"""BM25 over PostgreSQL's own text search: snippets keep their words as a tsvector
(English Snowball stems, English stopwords), a GIN index finds the snippets holding any
query term, and the score is computed from the tsvectors of those snippets alone.

PostgreSQL's `ts_rank_cd` was the alternative; it has no document frequency (a word in
every snippet weighs as much as a rare one), and on CISI it scored below BM25
(bench/retrieval_cisi.py --postgres prints both)."""

from __future__ import annotations

from ....domain.search.search_request import SearchFilters
from .filters import filter_sql

K1 = 1.2
B = 0.75

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
    SELECT tf.id AS chunk_id, sum(q.weight
        * ln((%(snippets)s - df.df + 0.5) / (df.df + 0.5) + 1)
        * tf.tf * {K1 + 1} / (tf.tf + {K1} * ({1 - B} + {B} * tf.term_count / %(avgdl)s)))
        AS score
    FROM tf JOIN q USING (term) JOIN df USING (term)
    GROUP BY tf.id)
"""

# Cover density: PostgreSQL's own ranking, kept for the comparison in the benchmark.
COVER_DENSITY_SCORES = """
WITH q AS (SELECT lexeme AS term FROM unnest(to_tsvector('english', %(query)s::text))),
probe AS (SELECT string_agg(array_to_tsvector(ARRAY[term])::text, ' | ')::tsquery AS t
          FROM q),
scored AS (SELECT c.id AS chunk_id, ts_rank_cd(c.terms, probe.t, 1)::float8 AS score
           FROM chunks c, probe WHERE c.space = %(space)s AND c.level = 'snippet'
           AND c.terms @@ probe.t)
"""


def ranked_sql(scores: str, filters: SearchFilters) -> tuple[str, dict[str, object]]:
    """The best `%(limit)s` snippet ids from a `scored(chunk_id, score)` CTE, passing
    `filters`, with the filters' own parameters to bind beside the CTE's."""
    if filters.empty:
        return (f"{scores} SELECT s.chunk_id, s.score FROM scored s "
                "ORDER BY s.score DESC, s.chunk_id LIMIT %(limit)s"), {}
    versions, conditions, params = filter_sql(filters)
    return (f"{scores} SELECT s.chunk_id, s.score FROM scored s JOIN chunks c "
            f"ON c.id = s.chunk_id {versions}WHERE true{conditions} "
            "ORDER BY s.score DESC, s.chunk_id LIMIT %(limit)s"), params
