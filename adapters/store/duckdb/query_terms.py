"""A query's terms and how often it repeats each, made as the full-text index makes
them (`text_index.tokens_sql`, then `stem()`), mostly without a DuckDB round trip.

The tokenizer's steps are ASCII-only on ASCII text (lower case, no accent to strip, an
ASCII character class, RE2's `\\s`), so an ASCII query is split here; any other goes to
DuckDB's own expression. Each word's stem comes from DuckDB's `stem()`, asked once per
word and kept: a query whose words were all seen before needs no SQL at all.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter

import duckdb

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


class QueryTerms:
    """Stems of the words queries used, shared by every search of the process."""

    def __init__(self) -> None:
        self._stems: dict[str, str] = {}
        self._lock = threading.Lock()

    def known_weights(self, query: str) -> Counter[str] | None:
        """`weights` without DuckDB: None unless the query is ASCII and every word of it
        was stemmed before."""
        if not query.isascii():
            return None
        words = ascii_tokens(query)
        stems = [self._stems.get(w) for w in words]
        if any(s is None for s in stems):
            return None
        return Counter(s for s in stems if s is not None)

    def weights(self, c: duckdb.DuckDBPyConnection, query: str) -> Counter[str]:
        """Each term of `query` with the number of its words that stem to it. Stopwords
        are kept, as the SQL ranking keeps them: a stopword's stem can be another
        word's term."""
        if query.isascii():
            words = ascii_tokens(query)
        else:
            words = [str(r[0]) for r in c.execute(
                f"SELECT unnest({tokens_sql('?')})", [query]).fetchall() if r[0]]
        known = {w: s for w in set(words) if (s := self._stems.get(w)) is not None}
        missing = [w for w in dict.fromkeys(words) if w not in known]
        if missing:
            found = {str(w): str(s) for w, s in (c.execute(
                f"SELECT w, stem(w, '{STEMMER}') FROM (VALUES "
                f"{', '.join(f'({sql_text(w)})' for w in missing)}) AS t(w)")
                if literal_safe(missing) else c.execute(
                "SELECT w, stem(w, ?) FROM (SELECT unnest(from_json(?, '[\"VARCHAR\"]')) AS w)",
                [STEMMER, json.dumps(missing)])).fetchall()}
            known.update(found)
            with self._lock:
                if len(self._stems) + len(found) > KEPT_STEMS:
                    self._stems.clear()
                self._stems.update(found)
        return Counter(known[w] for w in words)
