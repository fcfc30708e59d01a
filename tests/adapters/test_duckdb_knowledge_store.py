"""DuckDB specifics: schema versions, persistence across opens, atomic writes."""

from __future__ import annotations

from pathlib import Path

import anyio
import attrs
import duckdb
import pytest

from sheaf.adapters.store.duckdb import lookup_indexes
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.schema import MIGRATIONS, SCHEMA_VERSION
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.feature_hashing import FINGERPRINT_DIMENSION
from tests.adapters.duckdb_schema_8 import as_schema_8
from tests.contract.test_knowledge_store_contract import URL, save, source_of, version

pytestmark = pytest.mark.anyio


async def test_documents_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    await store.aclose()
    reopened = DuckDbKnowledgeStore(path)
    found = await reopened.catalogue.find("default", URL.key)
    assert found is not None and found.current.blocks
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION
    await reopened.aclose()


async def test_a_newer_store_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    DuckDbKnowledgeStore(path).connection.writer.close()
    with duckdb.connect(str(path)) as connection:
        connection.execute("UPDATE sheaf_schema SET version = ?", [SCHEMA_VERSION + 1])
    with pytest.raises(SheafError) as caught:
        DuckDbKnowledgeStore(path)
    assert caught.value.kind is ErrorKind.STORE_VERSION
    assert "Upgrade sheaf" in caught.value.message


async def test_a_failed_write_leaves_the_previous_state(tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await save(store, version(1, "s1"), URL)
    with pytest.raises(duckdb.Error):
        await save(store, version(1, "s2"), URL)  # same version id: refused
    found = await store.catalogue.find("default", URL.key)
    assert found is not None
    assert [v.id for v in found.versions] == ["doc_1.v1"]
    assert found.current.superseded_at is None
    assert (await source_of(store, "default", URL.key)).fetched_sha == "s1"  # type: ignore[union-attr]
    await store.aclose()


async def test_a_version_1_store_is_migrated_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with duckdb.connect(str(path)) as connection:  # a store as sheaf's first schema wrote it
        for statement in MIGRATIONS[0]:
            connection.execute(statement)
        connection.execute("INSERT INTO documents VALUES ('doc_1', 'default', 'doc_1.v1', "
                           "NULL, now(), now())")
        connection.execute(
            "INSERT INTO versions VALUES ('doc_1.v1', 'doc_1', 'default', 1, 's1', 's1', 'm1', "
            "'html', 'text/html', 'Old', now(), NULL, '{}', '{}', NULL, '[]', 3, '[]')")
        connection.execute("INSERT INTO sources VALUES ('default', ?, 'url', 'doc_1', 's1', "
                           "?, NULL, now())", [URL.key, URL.original])
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION == 12
    assert await reopened.catalogue.chunks("default", "doc_1.v1") == ()
    found = await reopened.catalogue.find("default", URL.key)
    assert found is not None and found.title == "Old"
    assert found.current.near_duplicate_of is None
    assert await reopened.search_index.embedding_model("default") is None
    assert found.current.enrichment is None
    assert (await reopened.policies.policy("default")).enrich == frozenset()
    await reopened.aclose()


async def test_reads_do_not_wait_for_the_writer(tmp_path: Path) -> None:
    """While the writer's lock is held (a long write), lookups still answer: they run on
    pooled cursors of their own."""
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await save(store, version(1, "s1"), URL)
    with store.connection._lock:  # what a write holds for its whole transaction
        with anyio.fail_after(10):
            found = await store.catalogue.find("default", URL.key)
            listed = await store.catalogue.documents("default")
    assert found is not None and [d.id for d in listed] == ["doc_1"]
    await store.aclose()


async def test_the_optional_hnsw_index_answers_vector_searches(tmp_path: Path) -> None:
    pytest.importorskip("duckdb_extension_vss")
    from sheaf.domain.search.embeddings import ChunkVectors, EmbeddingModel, unit_vector
    from sheaf.domain.search.search_request import SearchFilters
    from tests.contract.test_knowledge_store_contract import text_chunk

    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    model = EmbeddingModel("test", 3)
    directions = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0)]
    chunks = tuple(text_chunk("doc_1.v1", i, f"words {i}") for i in range(len(directions)))
    await save(store, version(1, "s1"), URL, chunks=chunks, vectors=ChunkVectors(
        model, tuple(c.id for c in chunks), tuple(unit_vector(d) for d in directions)))
    assert await store.hnsw_index.build("default")
    found = await store.search_index.search_vectors("default", model, unit_vector((0, 1, 0.1)), 2)
    assert [i for i, _ in found] == ["doc_1.v1:snippet:1", "doc_1.v1:snippet:3"]
    assert found[0][1] == pytest.approx(1 / 1.01 ** 0.5, abs=1e-5)
    assert await store.search_index.search_vectors(
        "default", model, unit_vector((0, 1, 0)), 2,
        SearchFilters(document_ids=frozenset({"doc_9"}))) == []
    await store.hnsw_index.drop("default")
    again = await store.search_index.search_vectors("default", model, unit_vector((0, 1, 0.1)), 2)
    assert [i for i, _ in again] == [i for i, _ in found]
    await store.aclose()


async def test_indexes_are_checked_only_after_an_unclean_close(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sheaf.adapters.store.duckdb.maintenance as module

    checks: list[str] = []
    real = module._index_misses_rows

    def counted(c: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
        checks.append(table)
        return real(c, table, column)

    monkeypatch.setattr(module, "_index_misses_rows", counted)
    # Lookup indexes come with a table's growth (ADR-0050): here from its first row.
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 1)
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    await store.maintenance.settle()  # the tables' lookup indexes made
    await store.aclose()
    Path(f"{path}.closed").unlink()
    store = DuckDbKnowledgeStore(path)  # no marker: checked
    await store.aclose()
    assert checks and Path(f"{path}.closed").exists()
    checks.clear()
    reopened = DuckDbKnowledgeStore(path)  # closed cleanly: not checked
    assert checks == [] and not Path(f"{path}.closed").exists()
    # The process dies without closing the store: the OS drops its locks, no marker.
    reopened.connection.writer.close()
    reopened.connection.release_lock()
    DuckDbKnowledgeStore(path).connection.writer.close()
    assert checks  # no marker: the next open checks again


async def test_the_first_vector_search_scans_and_the_next_ones_agree() -> None:
    """After a write the first vector search scans the table; the next load the matrix:
    both rank alike, filters included."""
    import random

    from sheaf.domain.search.embeddings import ChunkVectors, EmbeddingModel, unit_vector
    from sheaf.domain.search.search_request import SearchFilters
    from tests.contract.test_knowledge_store_contract import text_chunk

    chooser = random.Random(3)
    store = DuckDbKnowledgeStore(":memory:")
    model = EmbeddingModel("test", 8)
    for doc in range(6):
        vid = f"doc_{doc}.v1"
        chunks = tuple(text_chunk(vid, i, f"words {i}") for i in range(5))
        vectors = tuple(unit_vector(tuple(chooser.gauss(0, 1) for _ in range(8)))
                        for _ in chunks)
        source = attrs.evolve(URL, key=f"{URL.key}/{doc}")
        await save(store, version(1, f"s{doc}", doc=f"doc_{doc}"), source, chunks=chunks,
                   vectors=ChunkVectors(model, tuple(c.id for c in chunks), vectors))
    query = unit_vector(tuple(chooser.gauss(0, 1) for _ in range(8)))
    only = SearchFilters(document_ids=frozenset({"doc_2", "doc_4"}))
    for filters in (SearchFilters(), only):
        store.vector_search._scanned.clear()
        store.vector_search._matrices.clear()
        scanned = await store.search_index.search_vectors("default", model, query, 7, filters)
        assert not store.vector_search._matrices
        loaded = await store.search_index.search_vectors("default", model, query, 7, filters)
        assert store.vector_search._matrices
        assert [i for i, _ in scanned] == [i for i, _ in loaded] and len(loaded) == 7
        assert [s for _, s in scanned] == pytest.approx([s for _, s in loaded], abs=1e-5)
    await store.aclose()


async def test_no_other_store_opens_the_file_while_compaction_has_it_closed(
        tmp_path: Path) -> None:
    """Compaction closes DuckDB's connection (and so its lock) to swap the rewritten file
    in; the store's own lock keeps every other opener out meanwhile."""
    import sheaf.adapters.store.duckdb.maintenance as module

    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    attempts: list[ErrorKind] = []
    real_replace = module.os.replace

    def replace_while_another_tries(source: str, target: str) -> None:
        try:
            DuckDbKnowledgeStore(path)
        except SheafError as exc:
            attempts.append(exc.kind)
        real_replace(source, target)

    module.os.replace = replace_while_another_tries  # type: ignore[assignment]
    try:
        await store.connection.run(lambda _: store.maintenance._rewrite_file())
    finally:
        module.os.replace = real_replace  # type: ignore[assignment]
    assert attempts == [ErrorKind.STORE_LOCKED]
    assert (await store.catalogue.find("default", URL.key)) is not None
    assert await store.search_index.search_text("default", "anything", 5) is not None
    await store.aclose()
    DuckDbKnowledgeStore(path).connection.release_lock()  # free again once closed


def _fingerprints(seed: int, count: int) -> list[tuple[float, ...]]:
    """Shingle fingerprints of generated texts, a third of them edited copies of an
    earlier one (near-duplicates at every distance around the ingest threshold)."""
    import random

    from sheaf.domain.search.feature_hashing import shingle_fingerprint

    rnd = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(300)]
    texts: list[list[str]] = []
    for _ in range(count):
        if texts and rnd.random() < 0.35:
            words = list(rnd.choice(texts))
            for _ in range(rnd.randint(0, 25)):
                words[rnd.randrange(len(words))] = rnd.choice(vocabulary)
        else:
            words = [rnd.choice(vocabulary) for _ in range(rnd.randint(5, 400))]
        texts.append(words)
    return [shingle_fingerprint(" ".join(words)) for words in texts]


DENSE_FINGERPRINT = (  # before each nonzero coordinate its gap's zeros (the first's: all)
    "list_resize(flatten(list_transform(range(1, len(coordinate_gaps) + 1), k -> list_append("
    "list_resize([]::FLOAT[], coordinate_gaps[k] - CASE WHEN k = 1 THEN 0 ELSE 1 END, "
    "0::FLOAT), CASE WHEN levels[k] < 0 THEN -magnitudes[-levels[k]] "
    f"ELSE magnitudes[levels[k]] END))), {FINGERPRINT_DIMENSION}, 0::FLOAT)"
    f"::FLOAT[{FINGERPRINT_DIMENSION}]")
"""A stored fingerprint made dense again in SQL, for DuckDB's own cosine."""


async def _scanned(store: DuckDbKnowledgeStore, space: str, fingerprint: tuple[float, ...],
                   threshold: float) -> list[tuple[str, float]]:
    """What the lookup answered before its filter and its sparse fingerprints: DuckDB's
    `array_cosine_similarity` of every stored fingerprint, made dense."""
    from sheaf.adapters.store.duckdb.vector_tables import vector_text

    def read(c: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
        rows = c.execute(
            "SELECT document_id, similarity FROM (SELECT document_id, array_cosine_similarity("
            f"{DENSE_FINGERPRINT}, ?::VARCHAR::FLOAT[{FINGERPRINT_DIMENSION}]) AS similarity "
            "FROM fingerprints WHERE space = ?) WHERE similarity >= ? "
            "ORDER BY similarity DESC, document_id",
            [vector_text(fingerprint), space, threshold]).fetchall()
        return [(str(r[0]), float(r[1])) for r in rows]

    return await store.connection.read(read)


@pytest.mark.integration  # 80 commits and 160 lookups on a file: `make test-integration`
async def test_the_near_duplicate_filter_answers_as_a_scan_of_every_fingerprint(
        tmp_path: Path) -> None:
    from tests.contract.test_knowledge_store_contract import remove

    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    stored = _fingerprints(1, 80)
    probes = _fingerprints(1, 110)[70:]  # the last 10 stored, and 30 edits or new ones
    for i, fingerprint in enumerate(stored):
        await save(store, version(1, f"s{i}", doc=f"doc_{i}"), attrs.evolve(
            URL, key=f"https://journal.example/{i}"), fingerprint=fingerprint)
        if i % 30 == 29:  # lookups along the way: the filter grows with the commits
            assert await store.search_index.similar_documents("default", stored[i], 0.95) == \
                await _scanned(store, "default", stored[i], 0.95)
    await save(store, version(2, "s5b", doc="doc_5"), attrs.evolve(
        URL, key="https://journal.example/5"), fingerprint=stored[57])  # doc_5 changed
    await remove(store, "default", "doc_9")
    found_any = 0
    for threshold in (0.99, 0.95, 0.8, 0.4):
        for probe in probes:
            found = await store.search_index.similar_documents("default", probe, threshold)
            assert found == await _scanned(store, "default", probe, threshold)
            found_any += bool(found)
    assert found_any > 20
    near = await store.search_index.similar_documents("default", stored[57], 0.95)
    assert {"doc_5", "doc_57"} <= {d for d, _ in near}
    await store.aclose()


async def test_a_version_6_store_gets_its_fingerprint_signs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sheaf.adapters.store.duckdb.schema._SIGNS_BATCH", 7)
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    stored = _fingerprints(2, 40)
    for i, fingerprint in enumerate(stored):
        await save(store, version(1, f"s{i}", doc=f"doc_{i}"), attrs.evolve(
            URL, key=f"https://journal.example/{i}"), fingerprint=fingerprint)
    expected = [await store.search_index.similar_documents("default", f, 0.95) for f in stored]
    await store.aclose()
    with duckdb.connect(str(path)) as connection:  # the same store as schema 6 held it
        as_schema_8(connection)
        for column in ("positive", "negative", "reaches"):
            connection.execute(f"ALTER TABLE fingerprints DROP COLUMN {column}")
        connection.execute("DROP TABLE held_blobs")  # schema 8's
        connection.execute("UPDATE sheaf_schema SET version = 6")
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION
    assert [await reopened.search_index.similar_documents("default", f, 0.95)
            for f in stored] == expected
    assert sum(len(e) > 1 for e in expected) >= 3  # near-duplicates among them
    unfilled = reopened.connection.writer.execute(
        "SELECT count(*) FROM fingerprints WHERE reaches IS NULL"
    ).fetchone()
    assert unfilled == (0,)
    await reopened.aclose()


async def test_the_checkpoint_threshold_grows_with_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sheaf.adapters.store.duckdb.maintenance as maintenance
    from sheaf.adapters.store.duckdb.maintenance import CHECKPOINT_SHARE, MIN_CHECKPOINT_BYTES

    def threshold(store: DuckDbKnowledgeStore) -> str:
        return str(store.connection.writer.execute(
            "SELECT current_setting('checkpoint_threshold')").fetchone()[0])  # type: ignore[index]

    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await save(store, version(1, "s1"), URL)
    # A small file: the floor, set over DuckDB's own 16 MiB after the first write.
    assert store.maintenance._checkpoint_threshold == MIN_CHECKPOINT_BYTES
    assert threshold(store) == f"{MIN_CHECKPOINT_BYTES / 2 ** 20:.1f} MiB"
    await store.aclose()
    # The growth, measured from a lower floor (a file four times the real one's is large).
    monkeypatch.setattr(maintenance, "MIN_CHECKPOINT_BYTES", 16 * 1024 * 1024)
    with duckdb.connect(str(path)) as connection:  # a file of about 200 MB
        connection.execute("CREATE TABLE ballast AS SELECT repeat(md5(i::VARCHAR), 40) AS t "
                           "FROM range(160000) r(i)")
    size = path.stat().st_size
    assert size * CHECKPOINT_SHARE > 2 * maintenance.MIN_CHECKPOINT_BYTES
    reopened = DuckDbKnowledgeStore(path)
    await save(reopened, version(1, "s2", doc="doc_2"), attrs.evolve(URL, key="other"))
    wanted = path.stat().st_size * CHECKPOINT_SHARE
    assert abs(reopened.maintenance._checkpoint_threshold - wanted) <= wanted / 8
    assert threshold(reopened) != "16.0 MiB"
    await reopened.aclose()
