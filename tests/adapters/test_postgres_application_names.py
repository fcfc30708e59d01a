"""sheaf's connections name themselves to PostgreSQL (`application_name`): the store's
pool and the queue's are told apart in pg_stat_activity, and a URL's own name wins."""

from __future__ import annotations

import pytest

from sheaf.adapters.store.postgres.application_names import LIMIT, application_name
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore

pytestmark = pytest.mark.anyio


async def _names(store: PostgresKnowledgeStore) -> set[str]:
    rows = await store.connection.rows(
        "SELECT application_name FROM pg_stat_activity WHERE datname = current_database()")
    return {str(r[0]) for r in rows}


async def test_the_store_and_the_queue_name_their_connections(
        postgres_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("procrastinate", reason="the queue extra is absent")
    from sheaf.adapters.queue.procrastinate_job_queue import ProcrastinateJobQueue

    monkeypatch.setenv("SHEAF_APPLICATION_NAME", "kb-prod")
    store = await PostgresKnowledgeStore.connect(postgres_database)
    try:
        async with ProcrastinateJobQueue(postgres_database):
            names = await _names(store)
    finally:
        await store.aclose()
    assert any(n.startswith("kb-prod sheaf ") and n.endswith(" store") for n in names), names
    assert any(n.startswith("kb-prod sheaf ") and n.endswith(" queue") for n in names), names


async def test_a_url_naming_its_application_keeps_it(postgres_database: str) -> None:
    store = await PostgresKnowledgeStore.connect(
        f"{postgres_database}?application_name=ops-console")
    try:
        assert "ops-console" in await _names(store)
    finally:
        await store.aclose()


def test_a_long_name_is_cut_to_what_postgres_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHEAF_APPLICATION_NAME", "é" * 80)
    name = application_name("store")
    assert len(name.encode("utf-8")) <= LIMIT and name.startswith("é")
