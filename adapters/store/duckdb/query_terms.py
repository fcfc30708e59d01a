"""A query's terms and how often it repeats each, made as the full-text index makes
them (`text_index.tokens_sql`, then `stem()`), mostly without a DuckDB round trip.

The tokenizer's steps are ASCII-only on ASCII text (lower case, no accent to strip, an
ASCII character class, RE2's `\\s`), so an ASCII query is split here; any other goes to
DuckDB's own expression. An ASCII word is stemmed here too, by the domain's Snowball
English stemmer, which gives what the fts extension's `stem(w, 'english')` gives (the
tests hold it to that); only a word with other characters is stemmed by DuckDB. Stems
are kept: a query whose words were all seen before costs dictionary look-ups alone.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterable

import duckdb

from ....domain.search.english_stemmer import stem
from .sql_literals import literal_safe, sql_text
from .text_index import STEMMER, tokens_sql

# `text_index._IGNORED` as Python's `re` reads it; RE2's `\s` is [\t\n\f\r ] (no \v).
_IGNORED = re.compile(r"""[0-9!@#$%^&*()_+={}\[\]:;<>,.?~\\/|'"`-]+""")
_SPACES = re.compile(r"[\t\n\f\r ]+")
KEPT_STEMS = 100_000
"""Stems kept per process before the cache starts again (a few MB)."""


def ascii_tokens(text: str) -> list[str]:
    """The raw tokens `tokens_sql` makes of an ASCII `text` (empty ones left out: no term
    is empty)."""
    return [w for w in _SPACES.split(_IGNORED.sub(" ", text.lower())) if w]


def duckdb_stems(c: duckdb.DuckDBPyConnection, words: Iterable[str]) -> dict[str, str]:
    """Each of `words` with its stem by DuckDB's `stem()`, in one statement."""
    words = list(words)
    return {str(w): str(s) for w, s in (c.execute(
        f"SELECT w, stem(w, '{STEMMER}') FROM (VALUES "
        f"{', '.join(f'({sql_text(w)})' for w in words)}) AS t(w)")
        if literal_safe(words) else c.execute(
        "SELECT w, stem(w, ?) FROM (SELECT unnest(from_json(?, '[\"VARCHAR\"]')) AS w)",
        [STEMMER, json.dumps(words)])).fetchall()}


class QueryTerms:
    """Stems of the words queries used, shared by every search of the process."""

    def __init__(self) -> None:
        self._stems: dict[str, str] = {}
        self._lock = threading.Lock()

    def ascii_weights(self, query: str) -> Counter[str] | None:
        """`weights` without DuckDB, for an ASCII query; None for any other."""
        if not query.isascii():
            return None
        return self._counted(ascii_tokens(query), None)

    def weights(self, c: duckdb.DuckDBPyConnection, query: str) -> Counter[str]:
        """Each term of `query` with the number of its words that stem to it. Stopwords
        are kept, as the SQL ranking keeps them: a stopword's stem can be another
        word's term. `c` is used only when the query is not ASCII."""
        if query.isascii():
            return self._counted(ascii_tokens(query), None)
        words = [str(r[0]) for r in c.execute(
            f"SELECT unnest({tokens_sql('?')})", [query]).fetchall() if r[0]]
        return self._counted(words, c)

    def _counted(self, words: list[str], c: duckdb.DuckDBPyConnection | None) -> Counter[str]:
        """The terms of `words`: ASCII ones stemmed here, others by DuckDB on `c` (there
        are none when `c` is None)."""
        stems = self._stems
        distinct = set(words)
        known = {w: s for w in distinct if (s := stems.get(w)) is not None}
        if len(known) < len(distinct):
            missing = [w for w in distinct if w not in known]
            found = {w: stem(w) for w in missing if w.isascii()}
            if c is not None and len(found) < len(missing):
                found.update(duckdb_stems(c, (w for w in missing if not w.isascii())))
            known.update(found)
            with self._lock:
                if len(stems) + len(found) > KEPT_STEMS:
                    stems.clear()
                stems.update(found)
        return Counter(known[w] for w in words)
