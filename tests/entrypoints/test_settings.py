"""One settings object: flags over the environment, each group read only by the commands
that use it, and every bad value a `configuration` error naming its variable."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.errors import ConfigurationError
from sheaf.entrypoints.api.settings import ALL_GROUPS, ENVIRONMENT, Group, Settings

WHOLE_NUMBERS = ("SHEAF_MAX_BYTES", "SHEAF_EMBEDDING_DIMENSION", "SHEAF_EMBEDDING_MAX_TOKENS",
                 "SHEAF_LLM_CONCURRENCY", "SHEAF_LLM_TOKEN_BUDGET")


def test_flags_win_over_the_environment(tmp_path: Path) -> None:
    environ = {"SHEAF_STORE": str(tmp_path / "env.duckdb"), "SHEAF_MAX_BYTES": "100",
               "SHEAF_TIMEOUT": "5", "SHEAF_EMBEDDER": "hashing:64",
               "SHEAF_ALLOW_PRIVATE_NETWORK": "yes", "SHEAF_LLM_BASE_URL": "http://x/v1",
               "SHEAF_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "XDG_DATA_HOME": "/data"}
    from_env = Settings.from_environment(environ)
    assert from_env.store == tmp_path / "env.duckdb"
    assert (from_env.fetch.max_bytes, from_env.fetch.total_timeout) == (100, 5.0)
    assert from_env.fetch.allow_private_network and from_env.embedder.spec == "hashing:64"
    assert from_env.language_model is not None and from_env.language_model.api_key == "k"
    flagged = Settings.from_environment(environ, store=tmp_path / "flag.duckdb",
                                        max_bytes=7, timeout=1.5, embedder="none")
    assert flagged.store == tmp_path / "flag.duckdb" and flagged.fetch.max_bytes == 7
    assert flagged.fetch.total_timeout == 1.5 and flagged.embedder.spec == "none"
    default = Settings.from_environment({"XDG_DATA_HOME": "/data"})
    assert default.store == Path("/data/sheaf/sheaf.duckdb")


def test_a_group_not_used_is_not_read() -> None:
    environ = {"SHEAF_MAX_BYTES": "25MB", "SHEAF_LLM_CONCURRENCY": "lots",
               "SHEAF_EMBEDDER": "hashing:32"}
    reading = Settings.from_environment(environ, groups={Group.STORE, Group.EMBEDDER})
    assert reading.embedder.spec == "hashing:32" and reading.language_model is None
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_environment(environ, groups={Group.FETCH})
    assert caught.value.variable == "SHEAF_MAX_BYTES"


def test_every_variable_belongs_to_a_group_or_to_all() -> None:
    for name, (group, meaning) in ENVIRONMENT.items():
        assert group is None or group in ALL_GROUPS, name
        assert meaning


@given(variable=st.sampled_from(WHOLE_NUMBERS),
       text=st.one_of(st.text(min_size=1), st.integers(max_value=0).map(str))
       .filter(lambda t: t.strip() and not t.strip().isdigit()))
def test_anything_but_a_whole_number_is_refused_naming_the_variable(variable: str,
                                                                    text: str) -> None:
    environ = {variable: text, "SHEAF_LLM_BASE_URL": "http://x/v1", "SHEAF_LLM_MODEL": "m"}
    try:
        Settings.from_environment(environ)
    except ConfigurationError as error:
        assert error.variable == variable and repr(text) in error.message
    else:
        assert int(text.strip()) >= 1  # what int() takes beyond ASCII digits (e.g. "٣")


@pytest.mark.parametrize(("variable", "value"), [
    ("SHEAF_TIMEOUT", "soon"), ("SHEAF_TIMEOUT", "0"), ("SHEAF_MAX_BYTES", "0"),
    ("SHEAF_ALLOW_PRIVATE_NETWORK", "maybe"), ("SHEAF_EMBEDDER", "word2vec"),
    ("SHEAF_EMBEDDER", "openai"), ("SHEAF_EMBEDDER", "hashing:wide"), ("LOG_LEVEL", "loud"),
])
def test_bad_values_name_their_variable(variable: str, value: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_environment({variable: value})
    assert caught.value.variable == variable


def test_a_language_model_needs_its_name() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_environment({"SHEAF_LLM_BASE_URL": "http://x/v1"})
    assert caught.value.variable == "SHEAF_LLM_MODEL"


def test_flags_given_with_settings_override_only_what_they_name(tmp_path: Path) -> None:
    base = Settings.from_environment({"SHEAF_TIMEOUT": "7", "SHEAF_MAX_BYTES": "1000"},
                                     store=tmp_path / "kb.duckdb")
    changed = base.with_flags(max_bytes=50, allow_private=True, embedder="none")
    assert changed.fetch.max_bytes == 50 and changed.fetch.allow_private_network
    assert changed.fetch.total_timeout == 7 and changed.store == base.store
    assert changed.embedder != base.embedder and base.with_flags() == base
    with pytest.raises(ConfigurationError) as bad:
        base.with_flags(max_bytes=0)
    assert bad.value.variable == "--max-bytes"


def test_flags_over_a_postgresql_store_keep_the_local_folder_the_environment_chose(
        tmp_path: Path) -> None:
    # A queued file's bytes wait in this folder: the enqueuer and the worker (whose
    # Knowledge.open puts its flags over the settings) must agree on it.
    settings = Settings.from_environment({"SHEAF_STORE": "postgresql://db/kb",
                                          "XDG_DATA_HOME": str(tmp_path)})
    assert settings.store == tmp_path / "sheaf" / "sheaf.duckdb"
    again = settings.with_flags(embedder="hashing")
    assert again.store == settings.store and again.store_url == "postgresql://db/kb"


def test_the_queue_url_scheme_is_read_as_the_stores_is_in_any_case() -> None:
    settings = Settings.from_environment({"SHEAF_QUEUE": "POSTGRESQL://u@db/kb"})
    assert settings.queue == "POSTGRESQL://u@db/kb"
