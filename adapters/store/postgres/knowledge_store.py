"""The knowledge store on PostgreSQL with pgvector: for a team whose agents share one
knowledge base from many processes and machines (ADR-0020). This module connects,
migrates the schema (`schema`) and hands out the port implementations, which share one
pool (`connection`): `catalogue`, `search_index`, `unit_of_work`, `space_policies`,
`answer_cache`, with the HNSW upkeep in `vector_indexes`."""

from __future__ import annotations

from functools import partial
from typing import Any

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from ....application.store.storage import Storage
from . import vector_tables
from .answer_cache import PostgresAnswerCache
from .application_names import connection_options
from .catalogue import PostgresCatalogue
from .connection import PostgresConnection
from .connection_errors import connection_error, operation_error
from .location import shown_location
from .schema import migrate
from .search_index import PostgresSearchIndex
from .space_policies import PostgresSpacePolicies
from .unit_of_work import PostgresUnitOfWork
from .vector_indexes import PostgresVectorIndexes

CONNECT_TIMEOUT = 10.0


class PostgresKnowledgeStore:
    """Every space in one PostgreSQL database (with the pgvector extension). Open it
    with `await PostgresKnowledgeStore.connect(url)`; the URL and the PG* variables
    follow libpq. Any number of processes may use one database at once.

    Its ports are `storage()`, and its attributes: `catalogue`, `index` (with its
    `ranking`), `policies`, `answers`, and `vector_indexes`; `connection` is the pool
    they share."""

    def __init__(self, url: str, pool: AsyncConnectionPool[Any]) -> None:
        self.connection = PostgresConnection(url, pool)
        self.url = url
        self.location = self.connection.location
        self.vector_indexes = PostgresVectorIndexes(self.connection)
        self.catalogue = PostgresCatalogue(self.connection)
        self.index = PostgresSearchIndex(self.connection, self.vector_indexes)
        self.policies = PostgresSpacePolicies(self.connection)
        self.answers = PostgresAnswerCache(self.connection)

    @classmethod
    async def connect(cls, url: str, *, min_size: int = 1, max_size: int = 8,
                      ef_search: int | None = None) -> PostgresKnowledgeStore:
        """Connect, migrate the schema (creating the vector extension when it is
        missing) and open a pool of `min_size` to `max_size` connections, each searching
        HNSW with `ef_search` candidates (`vector_tables.EF_SEARCH` when None)."""
        location = shown_location(url)
        try:
            first = await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT),
                **connection_options(url, "store"))
        except psycopg.Error as exc:
            raise connection_error(exc, location) from None
        try:
            try:
                await migrate(first, location)
            except psycopg.Error as exc:
                raise operation_error(exc, location, "migrating its schema") from None
        finally:
            await first.close()
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False,
            kwargs={"autocommit": True, **connection_options(url, "store")},
            configure=partial(_configure, ef_search=ef_search or vector_tables.EF_SEARCH),
            timeout=CONNECT_TIMEOUT)
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except (psycopg.Error, PoolTimeout) as exc:
            await pool.close()
            raise connection_error(psycopg.OperationalError(str(exc)), location) from None
        return cls(url, pool)

    def storage(self) -> Storage:
        """This store's ports, as the use cases take them."""
        return Storage(lambda: PostgresUnitOfWork(self.connection, self.vector_indexes),
                       self.catalogue, self.index, self.policies, self.answers, self.aclose)

    async def aclose(self) -> None:
        await self.connection.close()


async def _configure(connection: psycopg.AsyncConnection[Any], *, ef_search: int) -> None:
    """Each pooled connection: numpy arrays as `vector`, and the HNSW search settings
    (an iterative scan, so filters that reject the nearest rows still fill the top k)."""
    await register_vector_async(connection)
    await connection.execute(f"SET hnsw.ef_search = {int(ef_search)}")
    await connection.execute("SET hnsw.iterative_scan = relaxed_order")
