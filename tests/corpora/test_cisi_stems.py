"""Every distinct word of the CISI collection's documents and queries stems as DuckDB's
`stem(w, 'english')` stems it, split as the DuckDB store's full-text index splits text:
real English (library science) rather than generated words. Skipped when
../shared/corpora/retrieval-cisi is absent."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from sheaf.adapters.store.duckdb.packaged_extensions import load_packaged_extension
from sheaf.adapters.store.duckdb.query_terms import ascii_tokens, duckdb_stems
from sheaf.domain.search.english_stemmer import stems

CISI = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "retrieval-cisi"
# A corpus of the shared folder, not slow: `make test-integration` (and .ci/run) runs it.
pytestmark = pytest.mark.integration


def test_every_cisi_word_stems_as_duckdb_stems_it() -> None:
    if not (CISI / "corpus.jsonl").is_file() or not (CISI / "queries.jsonl").is_file():
        pytest.skip("../shared/corpora/retrieval-cisi is absent")
    texts = [" ".join((r.get("title", ""), r["text"]))
             for name in ("corpus.jsonl", "queries.jsonl")
             for r in map(json.loads, (CISI / name).read_text().splitlines())]
    words = {w for text in texts if text.isascii() for w in ascii_tokens(text)}
    assert len(words) > 5000
    with duckdb.connect() as c:
        assert load_packaged_extension(c, "fts")
        reference = duckdb_stems(c, words)
    ours = stems(words)
    assert {w for w in words if ours[w] != reference[w]} == set()
