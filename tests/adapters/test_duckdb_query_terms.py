"""A query's terms in the DuckDB store: an ASCII query's are made without a single DuckDB
statement, and every query's are what DuckDB's own tokenizer and `stem()` make of it
(the old path, all in SQL), whether its words were seen before or not."""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterator
from typing import Any, cast
from unittest.mock import patch

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb import query_terms
from sheaf.adapters.store.duckdb.packaged_extensions import load_packaged_extension
from sheaf.adapters.store.duckdb.query_terms import QueryTerms
from sheaf.adapters.store.duckdb.text_index import tokens_sql
from tests.adapters.test_english_stemmer_as_duckdb import OTHER_ASCII, WORD
from tests.property_examples import examples


class CountedConnection:
    """A connection that keeps every statement run through it."""

    def __init__(self, c: duckdb.DuckDBPyConnection) -> None:
        self._c = c
        self.statements: list[str] = []

    def execute(self, sql: str, parameters: Any = None) -> duckdb.DuckDBPyConnection:
        self.statements.append(sql)
        return self._c.execute(sql, parameters)


@pytest.fixture(scope="module")
def fts() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as c:
        assert load_packaged_extension(c, "fts")
        yield c


def duckdb_weights(c: duckdb.DuckDBPyConnection, query: str) -> Counter[str]:
    """The terms as DuckDB alone makes them: its tokenizer, then its `stem()`."""
    return Counter(str(r[0]) for r in c.execute(
        f"SELECT stem(t, 'english') FROM (SELECT unnest({tokens_sql('?')}) AS t) "
        "WHERE t <> ''", [query]).fetchall())


_SEPARATORS = st.text(st.sampled_from(" \t\n" + string.punctuation + string.digits + "\v"),
                      min_size=1, max_size=3)
_ASCII_QUERY = st.one_of(
    st.builds(lambda words, seps: "".join(w + s for w, s in zip(words, seps, strict=False)),
              st.lists(st.builds(lambda w, up: w.upper() if up else w, WORD, st.booleans()),
                       max_size=12),
              st.lists(_SEPARATORS, min_size=12, max_size=12)),
    st.text(string.printable + OTHER_ASCII, max_size=60))
_ACCENTED = st.sampled_from(("naïve", "Über", "café", "straße", "東京", "Ångström", "ﬁsh",
                             "résumés", "İstanbul", "øre", "coöperating", "Ελλάδα"))
_OTHER_QUERY = st.builds(lambda ascii, accented: f"{ascii} {' '.join(accented)}",
                         _ASCII_QUERY, st.lists(_ACCENTED, min_size=1, max_size=3))


@settings(max_examples=examples(200), deadline=None)
@given(queries=st.lists(_ASCII_QUERY, min_size=1, max_size=5))
def test_an_ascii_query_runs_no_statement_and_gets_duckdbs_terms(
        fts: duckdb.DuckDBPyConnection, queries: list[str]) -> None:
    terms = QueryTerms()
    counted = CountedConnection(fts)
    for query in queries * 2:  # new words, then the same words again
        assert terms.weights(cast(duckdb.DuckDBPyConnection, counted), query) == \
            duckdb_weights(fts, query)
        assert terms.ascii_weights(query) == duckdb_weights(fts, query)
    assert counted.statements == []


@settings(max_examples=examples(100), deadline=None)
@given(queries=st.lists(_OTHER_QUERY, min_size=1, max_size=4))
def test_any_other_query_gets_duckdbs_terms_from_its_tokenizer(
        fts: duckdb.DuckDBPyConnection, queries: list[str]) -> None:
    terms = QueryTerms()
    for query in queries * 2:
        counted = CountedConnection(fts)
        assert terms.ascii_weights(query) is None
        assert terms.weights(cast(duckdb.DuckDBPyConnection, counted), query) == \
            duckdb_weights(fts, query)
        # Its tokens by DuckDB; a stem statement only for a word left non-ASCII.
        assert 1 <= len(counted.statements) <= 2


def test_the_kept_stems_start_again_past_their_limit(fts: duckdb.DuckDBPyConnection) -> None:
    terms = QueryTerms()
    queries = ["tides tidal", "meadows seagrass", "naïve coöperation", "the tides", "Über"]
    with patch.object(query_terms, "KEPT_STEMS", 3):
        for query in queries * 2:
            assert terms.weights(fts, query) == duckdb_weights(fts, query)
            assert len(terms._stems) <= 3
