"""A fingerprint's nonzero coordinates stored as their gaps (schema 12, ADR-0050): read
back as the same dense vector and sign bitmaps, and migrated from the coordinates
themselves by SQL that agrees with the writer."""

from __future__ import annotations

import duckdb
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.store.duckdb.fingerprint_cosines import dense, sign_bitmaps
from sheaf.adapters.store.duckdb.row_writes import stored_gaps
from sheaf.adapters.store.duckdb.schema import _COORDINATE_GAPS
from sheaf.domain.search.feature_hashing import FINGERPRINT_DIMENSION

coordinate_sets = st.sets(st.integers(0, FINGERPRINT_DIMENSION - 1), max_size=200).map(sorted)


@given(coordinate_sets, st.data())
def test_gaps_read_back_as_the_coordinates_they_were(coordinates: list[int],
                                                     data: st.DataObject) -> None:
    levels = [data.draw(st.sampled_from([-2, -1, 1, 2])) for _ in coordinates]
    magnitudes = [0.25, 0.5]
    vector = dense(stored_gaps(coordinates), levels, magnitudes)
    expected = np.zeros(FINGERPRINT_DIMENSION, dtype=np.float32)
    for at, level in zip(coordinates, levels, strict=True):
        expected[at] = magnitudes[abs(level) - 1] * (1 if level > 0 else -1)
    assert np.array_equal(vector, expected)
    positive, negative = sign_bitmaps(stored_gaps(coordinates), levels)
    assert positive == np.packbits(expected > 0).tobytes()
    assert negative == np.packbits(expected < 0).tobytes()


@given(coordinate_sets)
def test_the_migration_makes_the_gaps_the_writer_makes(coordinates: list[int]) -> None:
    with duckdb.connect() as c:
        row = c.execute(f"SELECT {_COORDINATE_GAPS} FROM (SELECT ?::USMALLINT[] AS "
                        "coordinates)", [coordinates]).fetchone()
    assert row is not None and list(row[0]) == stored_gaps(coordinates)
