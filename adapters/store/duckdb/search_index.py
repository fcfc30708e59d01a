"""The DuckDB store's `SearchIndex`: BM25 over its own postings (`text_ranking.py`), vector
search (`vector_search.py`), snippets by id, and near-duplicate documents by
fingerprint through the in-memory sign filter (`fingerprint_filter.py`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from ....domain.search.embeddings import EmbeddingModel
from ....domain.search.search_request import NO_FILTERS, SearchFilters
from ....domain.store.fingerprint_signs import (
    fingerprint_signs,
    reach,
    reach_column,
    stored_float32,
)
from .connection import DuckDbConnection, one_snapshot
from .fingerprint_filter import FingerprintFilter
from .generation_cache import GenerationCache
from .rows import CHUNK_COLUMNS, CHUNK_WIDTH, chunks_from_rows, markdown_slices
from .sql_literals import literal_safe, sql_text
from .text_ranking import TextRanking
from .vector_search import VectorSearch
from .vector_tables import embedding_model

if TYPE_CHECKING:  # chunking is imported by the first read of chunks, not by opening
    from ....domain.analysis.chunking import Chunk

KEPT_SNIPPETS = 20_000
"""Snippets kept between writes, with their space (tens of MB at most)."""
PREFETCHED_SNIPPETS = 10
"""The best snippets of a text ranking read with it (a search's default k)."""
KEY_LOOKUPS = 32
"""Up to this many chunks are fetched by an IN list of their ids (through the lookup index
once the table has one, ADR-0050), one literal or parameter each."""
FINGERPRINT_ROWS = ("SELECT document_id, coordinate_gaps, levels, magnitudes, space FROM "
                    "fingerprints WHERE ")
"""The stored fingerprints a condition selects, as `fingerprint_cosines` reads them."""


class DuckDbSearchIndex:
    """Rankings over the current snippets of a space, best first, ties by id."""

    def __init__(self, connection: DuckDbConnection, vectors: VectorSearch,
                 fingerprints: FingerprintFilter) -> None:
        self._connection = connection
        self._vectors = vectors
        self._fingerprints = fingerprints
        self._text = TextRanking(connection)
        # A search reads its hits' snippets: those read since the last write are kept.
        self._snippets: GenerationCache[str, tuple[str, Chunk] | None] = GenerationCache(
            connection, KEPT_SNIPPETS)
        self._models: GenerationCache[str, EmbeddingModel | None] = GenerationCache(
            connection, 64)
        self._read_whole: dict[str, int] = {}  # space: the generation it was last tried at

    async def search_text(self, space: str, query: str, limit: int,
                          filters: SearchFilters = NO_FILTERS
                          ) -> list[tuple[str, float]]:
        if not self._connection.full_text_loaded:  # LOADed once, under the write lock
            await self._connection.run(lambda _: None, writes=False)
        ranked = self._text.ranked_at_once(space, query, limit, filters)
        if ranked is not None:
            return ranked

        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            # The index is written with the snippets: a read sees it as it sees them.
            ranked = self._text.ranked(c, space, query, limit, filters)
            # The best few are read now, in this thread, for the `snippets` call that
            # follows: one hand-over to a thread less (on a loaded machine most of a
            # warm search's wall time is waiting for threads to run).
            best = [i for i, _ in ranked[:PREFETCHED_SNIPPETS]]
            if best:
                self._snippets.get_many(best, lambda ids: self._fetch_snippets(c, space, ids))
            return ranked

        return await self._connection.read(read)

    async def search_vectors(self, space: str, model: EmbeddingModel,
                             vector: tuple[float, ...], limit: int,
                             filters: SearchFilters = NO_FILTERS
                             ) -> list[tuple[str, float]]:
        return await self._vectors.search(space, model, vector, limit, filters)

    async def snippets(self, space: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        if not chunk_ids:
            return []
        ids = list(dict.fromkeys(chunk_ids))
        kept = self._snippets.kept(ids)
        if kept is None:
            kept = await self._connection.read(
                lambda c: self._snippets.get_many(ids, lambda missing: self._fetch_snippets(
                    c, space, missing)))
        return [found[1] for i in chunk_ids
                if (found := kept.get(i)) is not None and found[0] == space]

    def _fetch_snippets(self, c: duckdb.DuckDBPyConnection, space: str, ids: list[str]
                        ) -> dict[str, tuple[str, Chunk] | None]:
        """Each chunk id's (space, chunk), None for an id no chunk has; at the first
        miss after a write, every snippet of a space of up to half KEPT_SNIPPETS (read
        whole about as fast as ten by id: the searches after it read none). One
        snapshot: the snippets' rows and their sections' Markdown are read apart."""
        return one_snapshot(c, lambda c: self._fetch_snippets_now(c, space, ids))

    def _fetch_snippets_now(self, c: duckdb.DuckDBPyConnection, space: str,
                            ids: list[str]) -> dict[str, tuple[str, Chunk] | None]:
        generation = self._connection.generation
        if self._read_whole.get(space) != generation:
            self._read_whole[space] = generation
            # Each snippet comes with its section's offsets and text (a snippet's text is
            # its section's, a section's its held Markdown's, ADR-0048): one statement,
            # and one more for the Markdown of the sections stored without text.
            rows = c.execute(
                f"SELECT {CHUNK_COLUMNS}, c.space, p.start_offset, p.text, p.end_offset, "
                "p.version_id FROM chunks c LEFT JOIN chunks p ON p.id = c.parent_id WHERE "
                "c.space = ? AND c.level = 'snippet' AND (SELECT coalesce(max(docs), 0) "
                "FROM text_spaces WHERE space = ?) <= ?",
                [space, space, KEPT_SNIPPETS // 2]).fetchall()
            if rows:
                space_at, start_at, text_at = CHUNK_WIDTH, CHUNK_WIDTH + 1, CHUNK_WIDTH + 2
                sections = {r[11]: (int(r[start_at]), r[text_at]) for r in rows
                            if r[text_at] is not None}
                bare = {r[11]: (str(r[11]), str(r[text_at + 2]), int(r[start_at]),
                                int(r[text_at + 1])) for r in rows
                        if r[5] is None and r[text_at] is None and r[start_at] is not None}
                if bare:
                    sections.update(markdown_slices(c, list(bare.values())))
                whole: dict[str, tuple[str, Chunk] | None] = {
                    r[0]: (str(r[space_at]), chunk) for r, chunk in zip(
                        rows, chunks_from_rows(c, rows, sections), strict=True)}
                rest = [i for i in ids if i not in whole]
                return {**whole, **(self._snippets_by_id(c, rest) if rest else {})}
        return self._snippets_by_id(c, ids)

    @staticmethod
    def _snippets_by_id(c: duckdb.DuckDBPyConnection, ids: list[str]
                        ) -> dict[str, tuple[str, Chunk] | None]:
        if len(ids) <= KEY_LOOKUPS and literal_safe(ids):
            # A short IN list alone on the id, as literals: DuckDB then filters
            # inside the scan, skipping row groups (half the CPU of bound parameters; any
            # other condition beside it means a full scan).
            found = c.execute(f"SELECT {CHUNK_COLUMNS}, c.space FROM chunks c WHERE "
                              f"c.id IN ({', '.join(map(sql_text, ids))})")
        else:
            # Long lists cost a bound parameter each (400: 52 ms on CISI); as one JSON
            # value joined to the table, 7 ms.
            found = c.execute(f"SELECT {CHUNK_COLUMNS}, c.space FROM (SELECT unnest("
                              """from_json(?, '["VARCHAR"]')) AS id) w """
                              "JOIN chunks c ON c.id = w.id", [json.dumps(ids)])
        fetched = found.fetchall()
        rows = {r[0]: (str(r[CHUNK_WIDTH]), chunk) for r, chunk in zip(
            fetched, chunks_from_rows(c, fetched), strict=True)}
        return {i: rows.get(i) for i in ids}

    async def embedding_model(self, space: str) -> EmbeddingModel | None:
        # Each vector search asks: kept until the next write, as the snippets are.
        kept = self._models.kept([space])
        if kept is None:
            kept = await self._connection.read(lambda c: self._models.get_many(
                [space], lambda spaces: {s: embedding_model(c, s) for s in spaces}))
        return kept[space]

    async def similar_documents(self, space: str, fingerprint: tuple[float, ...],
                                threshold: float) -> list[tuple[str, float]]:
        # The sign filter (exact: it drops only fingerprints whose cosine is certainly
        # below the threshold) leaves a few candidates, whose cosine DuckDB computes as the
        # scan of every fingerprint did, so the answers are the scan's to the last bit.
        signs = fingerprint_signs(fingerprint)
        new_reach = reach(fingerprint, threshold)
        column = reach_column(threshold)
        if column is not None and self._fingerprints.held_candidates(
                space, signs, new_reach, column) == []:
            # Most new documents have no candidate: answered without a thread's
            # hand-over, which costs more than the filter's few numpy operations.
            return []

        def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
            if column is None:
                return _at_least(c.execute(FINGERPRINT_ROWS + "space = ?", [space]).fetchall(),
                                 fingerprint, space, threshold)
            candidates = self._fingerprints.candidates(c, space, signs, new_reach, column)
            if not candidates:
                return []
            # An IN list alone on the key is looked up through its index, if it has one.
            found = c.execute(
                FINGERPRINT_ROWS + f"document_id IN ({', '.join('?' * len(candidates))})"
                if len(candidates) <= KEY_LOOKUPS else FINGERPRINT_ROWS +
                """document_id IN (SELECT unnest(from_json(?, '["VARCHAR"]')))""",
                candidates if len(candidates) <= KEY_LOOKUPS
                else [json.dumps(candidates)]).fetchall()
            return _at_least(found, fingerprint, space, threshold)

        return await self._connection.read(read)


def _at_least(rows: Sequence[Sequence[Any]], fingerprint: tuple[float, ...], space: str,
              threshold: float) -> list[tuple[str, float]]:
    """The `FINGERPRINT_ROWS` of `space` whose cosine to `fingerprint` is at least
    `threshold`, most similar first, ties by id."""
    import numpy as np  # the first near-duplicate lookup's import, not the store's open

    from .fingerprint_cosines import cosines

    probe = np.asarray(stored_float32(fingerprint), dtype=np.float32)
    kept = [r for r in rows if r[4] == space]
    found = zip((str(r[0]) for r in kept),
                cosines([(r[1], r[2], r[3]) for r in kept], probe), strict=True)
    return sorted(((d, s) for d, s in found if s >= threshold), key=lambda f: (-f[1], f[0]))
