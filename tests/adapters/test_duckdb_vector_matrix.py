"""The held vector matrix, a dimension to a row (ADR-0050): a query that is zero on most
coordinates (the hashing embedder's) reads only its own rows and ranks as the product
over every coordinate does."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb.vector_matrix import VectorMatrix


@given(st.integers(1, 60), st.integers(2, 24), st.integers(0, 10_000), st.floats(0.0, 1.0),
       st.integers(1, 12))
def test_a_sparse_query_ranks_as_the_whole_product(rows: int, dimension: int, seed: int,
                                                   zero_share: float, limit: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dimension)).astype(np.float32)
    query = rng.standard_normal(dimension).astype(np.float32)
    query[rng.random(dimension) < zero_share] = 0.0
    ids = [f"c{i:03d}" for i in range(rows)]
    found = VectorMatrix(ids, matrix).top(query.tolist(), limit)
    whole = matrix.astype(np.float64) @ query.astype(np.float64)
    assert len(found) == min(limit, rows)
    for chunk_id, score in found:
        assert abs(score - whole[ids.index(chunk_id)]) <= 1e-4 * (1 + abs(whole).max())
    # Best first: nothing left out scores clearly above what was kept.
    kept = {chunk_id for chunk_id, _ in found}
    lowest = min(score for _, score in found)
    assert all(whole[i] <= lowest + 1e-4 * (1 + abs(whole).max())
               for i, chunk_id in enumerate(ids) if chunk_id not in kept)
