"""The DuckDB file's block size: small for a file this sheaf makes, kept by a file that
exists and by compaction, widened to DuckDB's default for the vss HNSW index."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from sheaf.adapters.store.duckdb.connection import DEFAULT_BLOCK_SIZE, NEW_FILE_BLOCK_SIZE
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.domain.search.embeddings import ChunkVectors, EmbeddingModel, unit_vector
from tests.contract.test_knowledge_store_contract import URL, save, text_chunk, version

pytestmark = pytest.mark.anyio


def _block_size(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as c:
        row = c.execute("SELECT block_size FROM pragma_database_size()").fetchone()
    assert row is not None
    return int(row[0])


async def test_a_new_file_has_small_blocks_and_keeps_them_through_compaction(
        tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    await store.maintenance.compact()
    found = await store.catalogue.find("default", URL.key)
    assert found is not None and found.current.blocks
    await store.aclose()
    assert _block_size(path) == NEW_FILE_BLOCK_SIZE < DEFAULT_BLOCK_SIZE


async def test_a_file_with_default_blocks_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    duckdb.connect(str(path)).close()  # as an older sheaf made its files
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    await store.maintenance.compact()
    await store.aclose()
    assert _block_size(path) == DEFAULT_BLOCK_SIZE
    reopened = DuckDbKnowledgeStore(path)
    assert await reopened.catalogue.find("default", URL.key) is not None
    await reopened.aclose()


async def test_the_hnsw_build_widens_a_small_block_file_that_holds_vectors(
        tmp_path: Path) -> None:
    """Vectors are stored in a file of small blocks as in any other; the HNSW index,
    which vss refuses to build there (with an error that invalidates the connection),
    first rewrites the file with DuckDB's default blocks."""
    pytest.importorskip("duckdb_extension_vss")
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    model = EmbeddingModel("test", 3)
    chunks = tuple(text_chunk("doc_1.v1", i, f"words {i}") for i in range(3))
    await save(store, version(1, "s1"), URL, chunks=chunks, vectors=ChunkVectors(
        model, tuple(c.id for c in chunks),
        tuple(unit_vector(d) for d in [(1, 0, 0), (0, 1, 0), (0, 0, 1)])))
    assert _block_size_open(store) == NEW_FILE_BLOCK_SIZE
    assert await store.hnsw_index.build("default")
    assert _block_size_open(store) == DEFAULT_BLOCK_SIZE
    found = await store.search_index.search_vectors("default", model, unit_vector((1, 0, 0)), 1)
    assert [i for i, _ in found] == ["doc_1.v1:snippet:0"]
    await store.aclose()


def _block_size_open(store: DuckDbKnowledgeStore) -> int:
    row = store.connection.writer.execute(
        "SELECT block_size FROM pragma_database_size()").fetchone()
    assert row is not None
    return int(row[0])
