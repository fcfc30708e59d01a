"""The DuckDB store's lookup indexes (ADR-0050): none on a small store, each made once its
table has grown to `INDEXED_FROM_ROWS`; schema 12 drops the keys a schema 11 store had,
keeps held blobs' digests as bytes, a snippet's version in its chunk row only and a
fingerprint's coordinates as gaps, and every record and search reads as it did."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import anyio
import attrs
import duckdb
import pytest

from sheaf.adapters.store.duckdb import lookup_indexes, maintenance
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.schema import SCHEMA_VERSION
from sheaf.domain.search.feature_hashing import shingle_fingerprint
from sheaf.domain.store.ingestion import SourceKind, SourceRef
from sheaf.domain.store.knowledge_records import VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle
from tests.adapters.duckdb_schema_8 import as_schema_11
from tests.application.world import World

pytestmark = pytest.mark.anyio


def _note(n: int) -> bytes:
    return (f"# Note {n}\n\nThe tide table {n} lists the {n % 7} estuaries whose seagrass "
            f"grew in year {1990 + n}.\n").encode()


async def _ingest(store: DuckDbKnowledgeStore, count: int, start: int = 0) -> World:
    world = World(store)
    for n in range(start, start + count):
        world.files.files[f"/d/{n}.md"] = _note(n)
        assert (await world.ingestion.ingest(f"/d/{n}.md")).status.value == "new"
    await store.maintenance.settle()
    return world


def _keys(c: duckdb.DuckDBPyConnection) -> set[str]:
    return {str(r[0]) for r in c.execute(
        "SELECT DISTINCT table_name FROM duckdb_constraints() WHERE constraint_type IN "
        "('PRIMARY KEY', 'UNIQUE')").fetchall()}


async def test_a_small_store_has_no_lookup_index_and_a_grown_table_gets_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await _ingest(store, 4)
    assert await store.connection.read(lookup_indexes.existing) == set()
    assert not await store.connection.read(_keys) & set(lookup_indexes.KEYLESS_TABLES)
    # Six documents: six rows in documents, versions, sources and fingerprints, twelve
    # chunks, a vocabulary of more; one row in text_spaces, which is never indexed.
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 6)
    await _ingest(store, 2, start=4)
    await store.connection.run(lookup_indexes.make_grown)
    made = await store.connection.read(lookup_indexes.existing)
    assert made == set(lookup_indexes.LOOKUP_INDEXES)
    # The lookups they serve answer as the scans did.
    catalogue = store.catalogue
    for n in range(6):
        found = await catalogue.find("default", f"/d/{n}.md")
        assert found is not None
        chunks = await catalogue.chunks("default", found.current.id)
        assert chunks and chunks[0].text.startswith(f"# Note {n}")
    await store.aclose()


async def test_an_index_waits_for_its_own_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await _ingest(store, 3)
    # Three documents have six chunks and three versions: only the chunk indexes (and
    # the vocabulary's, which has more words than that) reach six rows.
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 6)
    assert await store.connection.run(lookup_indexes.make_grown)
    assert await store.connection.read(lookup_indexes.existing) == {
        "chunks_id", "chunks_version", "text_terms_term", "held_blobs_sha"}
    await store.aclose()


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry for each time the store looks for the lookup indexes due."""
    counted: list[int] = []
    real = maintenance.make_grown

    def counting(c: duckdb.DuckDBPyConnection) -> list[str]:
        counted.append(1)
        return real(c)

    monkeypatch.setattr(maintenance, "make_grown", counting)
    return counted


async def test_writes_make_the_indexes_due_looking_for_them_as_the_file_grows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, looks: list[int]) -> None:
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 40)
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = World(store)
    written = 0
    while "documents_id" not in await store.connection.read(lookup_indexes.existing):
        world.files.files[f"/d/{written}.md"] = _note(written)
        await world.ingestion.ingest(f"/d/{written}.md")
        written += 1
        assert written < 400, "the indexes due were never made"
    # Forty rows in the smallest table (documents), and soon after; far fewer looks than
    # writes. The notes' few words keep the vocabulary below forty: its index is not made.
    assert 40 <= written < 80 and len(looks) < written / 2
    assert await store.connection.read(lookup_indexes.existing) == set(
        lookup_indexes.LOOKUP_INDEXES) - {"text_terms_term"}
    before = len(looks)
    for n in range(written, written + 20):
        world.files.files[f"/d/{n}.md"] = _note(n)
        await world.ingestion.ingest(f"/d/{n}.md")
    assert len(looks) - before <= 3
    await store.aclose()


async def test_a_schema_11_store_loses_its_keys_and_reads_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    await _ingest(store, 5)
    documents = [await store.catalogue.find("default", f"/d/{n}.md") for n in range(5)]
    chunks = [await store.catalogue.chunks("default", d.current.id) for d in documents if d]
    held = {sha: await store.held_blobs.get(sha)
            for sha in await store.held_blobs.stored_digests()}
    hits = await store.search_index.search_text("default", "seagrass estuaries", 10)
    probe = shingle_fingerprint(_note(2).decode())
    similar = [await store.search_index.similar_documents("default", probe, t)
               for t in (0.9, 0.3)]
    assert similar[0] and len(similar[1]) > len(similar[0])
    await store.aclose()
    with duckdb.connect(str(path)) as connection:
        as_schema_11(connection)
        assert set(lookup_indexes.KEYLESS_TABLES) - {"held_blobs"} <= _keys(connection)
    # A table that has grown past the threshold gets its index as it migrates.
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 10)
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION == 12
    assert not await reopened.connection.read(_keys) & set(lookup_indexes.KEYLESS_TABLES)
    assert await reopened.connection.read(lookup_indexes.existing) == {
        "chunks_id", "chunks_version", "held_blobs_sha"}  # ten rows each, the rest fewer
    assert await reopened.connection.read(lambda c: c.execute(
        "SELECT DISTINCT data_type FROM duckdb_columns() WHERE table_name = 'held_blobs' "
        "AND column_name IN ('sha', 'basis')").fetchall()) == [("BLOB",)]
    assert await reopened.connection.read(lambda c: c.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'text_docs' "
        "ORDER BY column_index").fetchall()) == [("docid",), ("chunk_id",), ("space",),
                                                 ("length",)]
    assert [await reopened.catalogue.find("default", f"/d/{n}.md") for n in range(5)] \
        == documents
    assert [await reopened.catalogue.chunks("default", d.current.id)
            for d in documents if d] == chunks
    assert {sha: await reopened.held_blobs.get(sha) for sha in held} == held
    assert await reopened.search_index.search_text("default", "seagrass estuaries", 10) == hits
    # Fingerprints read back from their coordinates' gaps find the same near-duplicates.
    assert [await reopened.search_index.similar_documents("default", probe, t)
            for t in (0.9, 0.3)] == similar
    await reopened.aclose()


async def test_a_second_row_for_a_key_is_never_written(tmp_path: Path) -> None:
    """What the keys refused, the writers now keep out: the same source, blob, document
    and structure written again replace or keep their one row."""
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = await _ingest(store, 2)
    world.files.files["/d/0.md"] = _note(0) + b"\nA line added.\n"
    assert (await world.ingestion.ingest("/d/0.md")).status.value == "changed"
    # New bytes with the Markdown of a version before: its blob is held already.
    world.files.files["/d/0.md"] = _note(0) + b"\n\n"
    assert (await world.ingestion.ingest("/d/0.md")).status.value == "changed"
    world.files.files["/d/copy.md"] = _note(1)  # the same bytes under another name
    await world.ingestion.ingest("/d/copy.md")
    await world.ingestion.ingest("/d/1.md")  # unchanged

    def duplicates(c: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
        found = []
        for table, key in (("documents", "id"), ("versions", "id"), ("sources", "space, key"),
                           ("chunks", "id"), ("fingerprints", "document_id"),
                           ("version_structure", "version_id"), ("held_blobs", "sha"),
                           ("text_terms", "term"), ("text_spaces", "space")):
            row = c.execute(f"SELECT count(*) - count(DISTINCT ({key})) FROM {table}"
                            ).fetchone()
            found.append((table, int(row[0]) if row else -1))
        return found

    assert all(extra == 0 for _, extra in await store.connection.read(duplicates))
    await store.aclose()


async def test_a_key_found_twice_gets_an_index_all_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    """A unique index over a key refuses a second row; a store that somehow holds one
    (no sheaf writes it) gets a plain index and a warning, not a failed write."""
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await _ingest(store, 2)
    await store.connection.run(lambda c: c.execute(
        "INSERT INTO documents SELECT * FROM documents LIMIT 1"))
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 1)
    made = await store.connection.run(lookup_indexes.make_grown)
    assert "documents_id" in made and "documents holds one id in two rows" in caplog.text
    uniqueness = dict(await store.connection.read(lambda c: c.execute(
        "SELECT index_name, is_unique FROM duckdb_indexes()").fetchall()))
    assert uniqueness["documents_id"] is False and uniqueness["versions_id"] is True
    with pytest.raises(duckdb.ConstraintException):
        await store.connection.run(lambda c: c.execute(
            "INSERT INTO versions SELECT * FROM versions LIMIT 1"))
    await store.aclose()


async def test_a_store_in_memory_gets_the_indexes_due_as_it_grows(
        monkeypatch: pytest.MonkeyPatch, looks: list[int]) -> None:
    """A store in memory has no file whose growth says when to look: its writes do, so a
    large one is not left scanning for every key (it had its primary keys before)."""
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 20)
    store = DuckDbKnowledgeStore(":memory:")
    world = World(store)
    for n in range(60):
        world.files.files[f"/d/{n}.md"] = _note(n)
        assert (await world.ingestion.ingest(f"/d/{n}.md")).status.value == "new"
    # Sixty rows in documents, versions and sources: their indexes are made, in far
    # fewer looks than writes.
    assert {"documents_id", "versions_id", "sources_key"} <= await store.connection.read(
        lookup_indexes.existing)
    assert len(looks) < 60 / 2
    await store.aclose()


@pytest.mark.parametrize("together", [False, True])
async def test_a_version_id_stored_already_is_refused(tmp_path: Path, together: bool) -> None:
    """The primary key refused a second row for a version id; the writer does now, in a
    later unit of work or in the same one, and the store keeps the one it had."""
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    ref = SourceRef(SourceKind.FILE, "/d/0.md", "/d/0.md")
    record = VersionRecord(
        id="doc_0.v1", document_id="doc_0", space="default", number=1, fetched_sha="a" * 64,
        content_sha="a" * 64, markdown_sha="b" * 64, content_source="file",
        content_type="text/markdown", title="Note 0", created_at=datetime(2026, 1, 1, tzinfo=UTC),
        metadata={}, caller_metadata={}, caller_version_id=None, diagnostics=(), blocks=(),
        characters=10)
    bundle = VersionBundle(record, ref)
    if not together:
        async with store.storage().unit_of_work() as work:
            work.versions.add(bundle)
            await work.commit()
    with pytest.raises(duckdb.ConstraintException):
        async with store.storage().unit_of_work() as work:
            work.versions.add(bundle)
            if together:
                work.versions.add(attrs.evolve(bundle, record=attrs.evolve(record, title="B")))
            await work.commit()
    found = await store.catalogue.find("default", "doc_0")
    assert (found is not None and [v.title for v in found.versions] == ["Note 0"]) \
        if not together else found is None
    await store.aclose()


async def test_an_index_duckdb_cannot_make_yet_fails_no_committed_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB refuses to index a column whose values an update changed while an older
    read is still open ("outstanding updates"): the write that made the index due is
    committed all the same, and the index is made by a later write."""
    monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 10 ** 9)
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = await _ingest(store, 6)
    reading, done = threading.Event(), threading.Event()

    def held_open(c: duckdb.DuckDBPyConnection) -> int:
        row = c.execute("SELECT count(*) FROM sources").fetchone()
        reading.set()
        done.wait(30)
        return int(row[0]) if row else 0

    async with anyio.create_task_group() as group:
        group.start_soon(partial(store.connection.read, held_open, snapshot=True))
        await anyio.to_thread.run_sync(reading.wait, 30)
        # A source pointed at another document (as a duplicate found meanwhile can).
        await store.connection.run(lambda c: c.execute(
            "UPDATE sources SET document_id = 'other' WHERE key = '/d/0.md'"))
        monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 5)
        world.files.files["/d/6.md"] = _note(6)
        try:
            assert (await world.ingestion.ingest("/d/6.md")).status.value == "new"
        finally:
            done.set()
    assert await store.catalogue.find("default", "/d/6.md") is not None
    assert "sources_document" not in await store.connection.read(lookup_indexes.existing)
    world.files.files["/d/7.md"] = _note(7)
    await world.ingestion.ingest("/d/7.md")
    assert "sources_document" in await store.connection.read(lookup_indexes.existing)
    await store.aclose()
