"""The PostgreSQL store's schema versions and the sentences its failures become."""

from __future__ import annotations

import psycopg
import pytest

from sheaf.adapters.store.postgres.connection_errors import (
    connection_error,
    extension_error,
    operation_error,
)
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.adapters.store.postgres.location import shown_location
from sheaf.adapters.store.postgres.schema import SCHEMA_VERSION
from sheaf.domain.errors import ErrorKind, SheafError

pytestmark = pytest.mark.anyio


async def test_reopening_keeps_the_data_and_a_newer_schema_is_refused(
        postgres_schema_url: str) -> None:
    store = await PostgresKnowledgeStore.connect(postgres_schema_url)
    await store.answers.cache_text("k", "v")
    await store.aclose()
    again = await PostgresKnowledgeStore.connect(postgres_schema_url)  # migrates nothing
    assert await again.answers.cached_text("k") == "v"
    assert (await again.catalogue.status()).schema_version == SCHEMA_VERSION
    await again.connection.rows("UPDATE sheaf_schema SET version = %s RETURNING 1",
                      (SCHEMA_VERSION + 1,))
    await again.aclose()
    with pytest.raises(SheafError) as caught:
        await PostgresKnowledgeStore.connect(postgres_schema_url)
    assert caught.value.kind is ErrorKind.STORE_VERSION
    assert "Upgrade sheaf" in caught.value.message


@pytest.mark.parametrize(("server_said", "hint"), [
    ('connection failed: FATAL:  password authentication failed for user "sheaf"',
     "PGUSER/PGPASSWORD"),
    ('connection failed: FATAL:  database "kb" does not exist', "createdb"),
    ('connection failed: FATAL:  role "nobody" does not exist', "PGUSER"),
    ('connection failed: could not translate host name "db.internal" to address',
     "PGHOST"),
    ("connection timeout expired", "PGHOST"),
])
def test_connection_failures_name_what_to_check(server_said: str, hint: str) -> None:
    error = connection_error(psycopg.OperationalError(server_said),
                             shown_location("postgresql://sheaf:hunter2@db.internal/kb"))
    assert error.kind is ErrorKind.STORAGE and hint in error.message
    assert "hunter2" not in error.message and "postgresql://sheaf:***@db.internal/kb" in \
        error.message


def test_extension_and_operation_failures() -> None:
    refused = extension_error(psycopg.errors.InsufficientPrivilege("permission denied"), "X")
    assert "CREATE EXTENSION vector" in refused.message
    missing = extension_error(psycopg.errors.FeatureNotSupported(
        'extension "vector" is not available'), "X")
    assert "no pgvector extension" in missing.message
    deadlock = operation_error(psycopg.errors.DeadlockDetected("deadlock detected"), "X",
                               "committing a write")
    assert "try again" in deadlock.message and deadlock.kind is ErrorKind.STORAGE


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://u:p@h:5432/db", "postgresql://u:***@h:5432/db"),
    ("postgresql://h/db?user=u&password=p&sslmode=require",
     "postgresql://h/db?user=u&password=***&sslmode=require"),
    ("postgresql:///db", "postgresql:///db"),
])
def test_shown_locations_never_hold_the_password(url: str, shown: str) -> None:
    assert shown_location(url) == shown
