"""A space's vectors as one in-process float32 matrix, for exact nearest-neighbour search.

DuckDB scores `FLOAT[dim]` arrays one row group at a time, and a row group holds 122,880
rows, so up to that size a scan runs on one thread: about 55 ms for 100k vectors of 256
dimensions here. The same scores as one matrix product take about 4 ms. Loading the
matrix costs about 0.4 s per 100k vectors, paid by the first vector search after a write;
it holds 4 x dimension bytes per snippet (100 MB for 100k snippets at 256 dimensions).

It is held a dimension to a row: a query reads only the rows of its nonzero coordinates.
The hashing embedder's queries have 3-11 of 256 (a product over them took 0.49 ms
against 7-8 for all of it at 100k snippets, where reading the 100 MB bounded the time);
a dense model's query reads every row, as fast as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import numpy as np


class VectorMatrix:
    """The unit vectors of one space and model, with their snippet ids."""

    def __init__(self, ids: list[str], matrix: np.ndarray) -> None:
        self.ids = ids
        self.dimensions = np.ascontiguousarray(matrix.T)  # one row a dimension
        self._positions = {chunk_id: i for i, chunk_id in enumerate(ids)}

    @property
    def size(self) -> int:
        """How many numbers the matrix holds."""
        return int(self.dimensions.size)

    def touched(self, query: Sequence[float]) -> int:
        """How many numbers a search for `query` reads: the rows of its nonzero
        coordinates."""
        return (len(query) - query.count(0.0)) * len(self.ids)

    @classmethod
    def load(cls, c: duckdb.DuckDBPyConnection, table: str, space: str,
             dimension: int) -> VectorMatrix:
        found = c.execute(f"SELECT chunk_id, vector FROM {table} WHERE space = ?",
                          [space]).fetchnumpy()
        ids = [str(i) for i in found["chunk_id"]]
        vectors = found["vector"]
        matrix = (np.stack(vectors).astype(np.float32, copy=False) if len(ids)
                  else np.zeros((0, dimension), dtype=np.float32))
        return cls(ids, matrix)

    def top(self, query: Sequence[float], limit: int, allowed: set[str] | None = None
            ) -> list[tuple[str, float]]:
        """The `limit` best (id, cosine) pairs, best first, ties by id; only `allowed`
        ids when given."""
        if not self.ids or limit < 1:
            return []
        # einsum, not `@`: numpy's BLAS splits a matrix-vector product across threads,
        # and waking them cost more than the product (CISI's 1,815 x 384: 6.8 ms against
        # 0.1; 100k x 256: 21 against 5.6 ms, on 2 shared cores).
        probe = np.asarray(query, dtype=np.float32)
        used = np.flatnonzero(probe)
        scores = np.einsum("j,ji->i", probe, self.dimensions) if len(used) == len(probe) \
            else np.einsum("j,ji->i", probe[used], self.dimensions[used])
        if allowed is not None:
            mask = np.full(len(self.ids), -np.inf, dtype=np.float32)
            keep = [self._positions[i] for i in allowed if i in self._positions]
            if not keep:
                return []
            mask[keep] = 0.0
            scores = scores + mask
        count = min(limit, int(np.isfinite(scores).sum()))
        if count == 0:
            return []
        best = np.argpartition(-scores, count - 1)[:count] if count < len(scores) \
            else np.arange(len(scores))
        # (-cosine, id) pairs sort best first, ties by id; negating a float is exact.
        ids = self.ids
        ranked = sorted(zip((-scores[best]).tolist(), [ids[i] for i in best.tolist()],
                            strict=True))
        return [(chunk_id, -negated) for negated, chunk_id in ranked]
