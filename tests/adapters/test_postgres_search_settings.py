"""The operator's HNSW knob: SHEAF_HNSW_EF_SEARCH reaches every pooled connection of a
PostgreSQL store opened from the settings; out of pgvector's range it is a configuration
error naming the variable."""

from __future__ import annotations

import pytest

from sheaf.domain.errors import ConfigurationError
from sheaf.entrypoints.api.composition import open_store
from sheaf.entrypoints.api.settings import Settings

pytestmark = pytest.mark.anyio


async def test_ef_search_reaches_the_stores_connections(postgres_database: str) -> None:
    settings = Settings.from_environment({"SHEAF_STORE": postgres_database,
                                          "SHEAF_HNSW_EF_SEARCH": "250"})
    assert settings.hnsw_ef_search == 250
    store = await open_store(settings)
    try:
        assert await store.connection.rows("SHOW hnsw.ef_search") == [("250",)]
    finally:
        await store.aclose()
    default = await open_store(Settings.from_environment({"SHEAF_STORE": postgres_database}))
    try:
        assert await default.connection.rows("SHOW hnsw.ef_search") == [("100",)]
    finally:
        await default.aclose()


@pytest.mark.parametrize("value", ["0", "1001", "many"])
def test_ef_search_out_of_range_is_named(value: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_environment({"SHEAF_HNSW_EF_SEARCH": value})
    assert "SHEAF_HNSW_EF_SEARCH" in str(caught.value)
