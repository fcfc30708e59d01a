"""The domain's Snowball English stemmer gives what DuckDB's `stem(w, 'english')` gives,
byte for byte: the DuckDB store's index terms are made by DuckDB at ingest, a query's
by the domain stemmer. Words are generated the way the algorithm reads them: stems
followed by chains of its suffixes, its exception words, the region prefixes, y's after
vowels and consonants, doubled letters, very short words, and the other ASCII
characters sheaf's tokenizer can leave in a word."""

from __future__ import annotations

import json
from collections.abc import Iterator

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb.packaged_extensions import load_packaged_extension
from sheaf.domain.search.english_stemmer import stem, stems
from tests.property_examples import examples

# The suffixes of every step of the published algorithm, and the endings its conditions
# look at (y, e, ss, ll, doubled consonants, at/bl/iz, the li-endings).
SUFFIXES = (
    "s", "es", "ss", "sses", "us", "ies", "ied", "eed", "eedly", "ed", "edly", "ing",
    "ingly", "tional", "enci", "anci", "abli", "entli", "izer", "ization", "ational",
    "ation", "ator", "alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness",
    "iviti", "biliti", "bli", "ogi", "logi", "fulli", "lessli", "li", "alize", "icate",
    "iciti", "ical", "ful", "ness", "ative", "al", "ance", "ence", "er", "ic", "able",
    "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion",
    "sion", "tion", "e", "l", "ll", "y", "ly", "ey", "ay", "at", "bl", "iz", "bb", "dd",
    "ff", "gg", "mm", "nn", "pp", "rr", "tt", "cli", "dli", "hli", "kli", "mli", "nli",
    "rli", "tli", "wli", "oy", "uy", "ey", "ay", "ayed", "oying", "ement", "ements")
EXCEPTIONS = ("skis", "skies", "dying", "lying", "tying", "idly", "gently", "ugly", "early",
              "only", "singly", "sky", "news", "howe", "atlas", "cosmos", "bias", "andes",
              "inning", "outing", "canning", "herring", "earring", "proceed", "exceed",
              "succeed")
PREFIXES = ("gener", "commun", "arsen", "y", "ey", "a", "e", "o", "u", "i")
# What else the tokenizer leaves in an ASCII word: control characters (not the
# whitespace it splits at).
OTHER_ASCII = "".join(chr(i) for i in [*range(32), 127] if chr(i) not in "\t\n\f\r ")

_LETTERS = st.sampled_from("aeiouy" * 3 + "bcdfghjklmnpqrstvwxz" + "yyywwxx")
_BODY = st.text(_LETTERS, max_size=4)
_ENGLISH_LIKE = st.builds(
    lambda prefix, body, suffixes: prefix + body + "".join(suffixes),
    st.sampled_from(("", "", "", *PREFIXES)), _BODY,
    st.lists(st.sampled_from(SUFFIXES), max_size=3))
WORD = st.one_of(
    _ENGLISH_LIKE, _ENGLISH_LIKE, _ENGLISH_LIKE,
    st.builds(lambda w, s: w + s, st.sampled_from(EXCEPTIONS), st.sampled_from(("", "s", "ly"))),
    st.text(_LETTERS, min_size=1, max_size=4),  # short words: no region, hop 3
    st.text(st.sampled_from("ay" + "ey" + "sl" + "e"), min_size=1, max_size=8),
    st.text(st.sampled_from("aeiouybst" + OTHER_ASCII), min_size=1, max_size=8),
).filter(bool)


@pytest.fixture(scope="module")
def duckdb_stem() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as c:
        assert load_packaged_extension(c, "fts")
        yield c


def duckdb_stems(c: duckdb.DuckDBPyConnection, words: list[str]) -> dict[str, str]:
    return {str(w): str(s) for w, s in c.execute(
        "SELECT w, stem(w, 'english') FROM (SELECT unnest(from_json(?, '[\"VARCHAR\"]')) AS w)",
        [json.dumps(words)]).fetchall()}


@settings(max_examples=examples(200), deadline=None)
@given(words=st.lists(WORD, min_size=50, max_size=200, unique=True))
def test_words_stem_as_duckdb_stems_them(duckdb_stem: duckdb.DuckDBPyConnection,
                                         words: list[str]) -> None:
    reference = duckdb_stems(duckdb_stem, words)
    assert {w: stem(w) for w in words} == reference
    assert stems(words + words) == reference


def test_the_published_examples_and_the_edges_of_the_steps(
        duckdb_stem: duckdb.DuckDBPyConnection) -> None:
    # The description's own examples, each step's conditions either way, and lengths
    # no query has (a stem in one statement of any size).
    words = ["gas", "this", "gaps", "kiwis", "ties", "cries", "caresses", "feed", "agreed",
             "feedly", "hoping", "hopped", "fizzed", "cry", "by", "say", "generously", "communism",
             "arsenal", "beyond", "yyy", "sayyy", "fluently", "geology", "ecology", "ion",
             "ow", "axed", "owed", "a", "ab", "yes", "y" * 300, "ab" * 2000 + "ational",
             "\x00ing", "x\x7fed"]
    assert {w: stem(w) for w in words} == duckdb_stems(duckdb_stem, words)
