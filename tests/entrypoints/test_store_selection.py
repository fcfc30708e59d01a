"""Which store and which blob store the settings select, by URL or by path."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheaf.domain.errors import ConfigurationError
from sheaf.entrypoints.api.settings import Settings


@pytest.mark.parametrize("url", [
    "postgresql://sheaf@db.internal:5433/kb?sslmode=require",
    "postgres://u:p%40ss@[::1]/kb",
    "postgresql:///kb",  # host, port and user from PGHOST, PGPORT, PGUSER
    "POSTGRESQL://sheaf@db/kb",
])
def test_a_postgresql_url_is_kept_as_written(url: str, tmp_path: Path) -> None:
    for settings in (Settings.from_environment({"SHEAF_STORE": url,
                                                "XDG_DATA_HOME": str(tmp_path)}),
                     Settings.from_environment({"XDG_DATA_HOME": str(tmp_path)}, store=url)):
        assert settings.store_url == url
        assert settings.store == tmp_path / "sheaf" / "sheaf.duckdb"  # local staging only
    assert "p%40ss" not in Settings.from_environment({}, store=url).location


def test_a_path_stays_a_duckdb_file(tmp_path: Path) -> None:
    settings = Settings.from_environment({}, store=str(tmp_path / "kb.duckdb"))
    assert settings.store_url is None and settings.store == tmp_path / "kb.duckdb"
    assert settings.location == str(tmp_path / "kb.duckdb")


@pytest.mark.parametrize(("environ", "flags", "named"), [
    ({"SHEAF_STORE": "mysql://db/kb"}, {}, "SHEAF_STORE"),
    ({}, {"store": "https://db/kb"}, "--store"),
    ({"SHEAF_BLOBS": "gs://bucket/kb"}, {}, "SHEAF_BLOBS"),
    ({}, {"blobs": "s3://Bad_Bucket/kb"}, "--blobs"),
    ({"SHEAF_BLOBS": "s3://bucket/kb?region=x"}, {}, "SHEAF_BLOBS"),
])
def test_a_location_sheaf_cannot_use_names_its_setting(environ: dict[str, str],
                                                       flags: dict[str, str],
                                                       named: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_environment(environ, **flags)  # type: ignore[arg-type]
    assert named in str(caught.value)


def test_blobs_by_flag_or_variable_and_flags_over_settings(tmp_path: Path) -> None:
    settings = Settings.from_environment({"SHEAF_BLOBS": "s3://bucket/team/kb"})
    assert settings.blobs == "s3://bucket/team/kb"
    moved = settings.with_flags(store="postgresql://sheaf@db/kb")
    assert moved.store_url == "postgresql://sheaf@db/kb" and moved.blobs == settings.blobs
    back = moved.with_flags(store=tmp_path / "kb.duckdb", blobs="s3://other")
    assert back.store_url is None and back.blobs == "s3://other"


@pytest.mark.anyio
async def test_a_postgresql_store_without_the_extra_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sheaf.domain.errors import ErrorKind, SheafError
    from sheaf.entrypoints.api.composition import open_store

    # Not importable:
    monkeypatch.setitem(sys.modules, "sheaf.adapters.store.postgres.knowledge_store", None)
    with pytest.raises(SheafError) as caught:
        await open_store(Settings.from_environment({}, store="postgresql://u:pw@db/kb"))
    assert caught.value.kind is ErrorKind.STORAGE
    assert "pip install 'sheaf[postgres]'" in caught.value.message
    assert "pw" not in caught.value.message.replace("postgres", "")
