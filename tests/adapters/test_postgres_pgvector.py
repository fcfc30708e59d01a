"""The test PostgreSQL is real and has pgvector: an HNSW index answers ordered cosine
queries through the async driver the store will use (psycopg 3 with psycopg_pool)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.postgres_server import PostgresServer

psycopg = pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is missing")
psycopg_pool = pytest.importorskip("psycopg_pool",
                                   reason="psycopg_pool (the postgres extra) is missing")

pytestmark = pytest.mark.anyio

DIMENSION = 16


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


async def test_hnsw_cosine_search_matches_exact_search(postgres_database: str) -> None:
    rng = np.random.default_rng(21)
    vectors = rng.standard_normal((300, DIMENSION)).astype(np.float32)
    async with psycopg_pool.AsyncConnectionPool(postgres_database, min_size=1, max_size=4,
                                                open=False) as pool:
        async with pool.connection() as connection:
            await connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
            await connection.execute(
                f"CREATE TABLE snippet (id int PRIMARY KEY, embedding vector({DIMENSION}))")
            cursor = connection.cursor()
            async with cursor.copy("COPY snippet (id, embedding) FROM STDIN") as copy:
                for i, vector in enumerate(vectors):
                    await copy.write_row((i, _literal(vector)))
            await connection.execute(
                "CREATE INDEX snippet_hnsw ON snippet USING hnsw (embedding vector_cosine_ops)"
                " WITH (m = 16, ef_construction = 64)")
        query = rng.standard_normal(DIMENSION).astype(np.float32)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        cosine_distance = 1.0 - unit @ (query / np.linalg.norm(query))
        exact = list(np.argsort(cosine_distance)[:10])
        async with pool.connection() as connection, connection.transaction():
            # Force the index (the planner would scan 300 rows), and search widely
            # enough that HNSW's answer is all but exact on this small set.
            await connection.execute("SET LOCAL enable_seqscan = off")
            await connection.execute("SET LOCAL hnsw.ef_search = 100")
            plan = await (await connection.execute(
                "EXPLAIN SELECT id FROM snippet ORDER BY embedding <=> %s::vector "
                "LIMIT 10", (_literal(query),))).fetchall()
            rows = await (await connection.execute(
                "SELECT id, embedding <=> %s::vector AS distance FROM snippet "
                "ORDER BY distance LIMIT 10", (_literal(query),))).fetchall()
    assert any("snippet_hnsw" in line for (line,) in plan)
    found = [i for i, _ in rows]
    assert len(set(found) & set(exact)) >= 9  # HNSW is approximate, if barely at this size
    distances = [d for _, d in rows]
    assert distances == sorted(distances)
    assert np.allclose(distances, cosine_distance[found], atol=1e-5)  # `<=>` is 1 - cosine


async def test_each_module_has_a_database_of_its_own(postgres_server: PostgresServer,
                                                     postgres_database: str) -> None:
    other = postgres_server.create_database()
    try:
        async with await psycopg.AsyncConnection.connect(postgres_server.url(other)) as c:
            tables = await (await c.execute(
                "SELECT count(*) FROM pg_tables WHERE tablename = 'snippet'")).fetchone()
            assert tables == (0,)
            extension = await (await c.execute(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            )).fetchone()
            assert extension is not None  # pgvector ships with the server's binaries
    finally:
        postgres_server.drop_database(other)
