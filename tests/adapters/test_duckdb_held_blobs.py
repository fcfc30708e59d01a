"""Small blobs held in the DuckDB file (ADR-0047): written with their version, read
through the blob store, collected with their document, and absent from the blob folder;
large ones and stores written before stay in the blob store."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sheaf.adapters.store.duckdb.held_blobs import HELD_BLOB_BYTES
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.duckdb.schema import SCHEMA_VERSION
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.held_first_blobs import blobs_of
from sheaf.domain.errors import ErrorKind, SheafError
from tests.adapters.duckdb_schema_8 import as_schema_8, as_schema_10
from tests.application.world import World

pytestmark = pytest.mark.anyio

SMALL = b"# Tides\n\nSeagrass grew with the tides.\n"


def _large() -> bytes:
    words = (f"word{i} grows near the estuary" for i in range(HELD_BLOB_BYTES // 16))
    return ("# Estuary\n\n" + " ".join(words) + "\n").encode()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def test_a_small_documents_blobs_are_held_and_a_large_ones_are_files(
        tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = World(store)
    large = _large()
    world.files.files["/d/small.md"] = SMALL
    world.files.files["/d/large.md"] = large
    for path in ("/d/small.md", "/d/large.md"):
        assert (await world.ingestion.ingest(path)).status.value == "new"
    small_doc = await world.storage.catalogue.find("default", "/d/small.md")
    large_doc = await world.storage.catalogue.find("default", "/d/large.md")
    assert small_doc is not None and large_doc is not None
    held = set(await store.held_blobs.stored_digests())
    assert {_sha(SMALL), small_doc.current.markdown_sha} <= held
    assert _sha(SMALL) not in world.blobs.blobs  # no file, no fsync
    assert _sha(large) in world.blobs.blobs and _sha(large) not in held
    blobs = blobs_of(world.storage, world.blobs)
    assert await blobs.get(_sha(SMALL)) == SMALL
    assert await blobs.get(_sha(large)) == large
    markdown = (await blobs.get(small_doc.current.markdown_sha)).decode()
    assert "Seagrass grew with the tides." in markdown
    await store.aclose()
    reopened = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")  # held across opens
    assert await reopened.held_blobs.get(_sha(SMALL)) == SMALL
    await reopened.aclose()


async def test_removal_and_the_sweep_collect_held_blobs(tmp_path: Path) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = World(store)
    shared = b"# Shared\n\nThe same words under two names.\n"
    world.files.files.update({"/d/a.md": SMALL, "/d/b.md": shared, "/d/c.md": shared})
    for path in ("/d/a.md", "/d/b.md", "/d/c.md"):
        await world.ingestion.ingest(path)
    catalogue = DocumentCatalogue(world.storage, world.blobs)
    removed = await catalogue.remove("default", "/d/a.md")
    left = set(await store.held_blobs.stored_digests())
    assert _sha(SMALL) not in left and removed.current.markdown_sha not in left
    assert _sha(shared) in left  # still another document's (c.md is b.md's alias)
    assert await catalogue.markdown(await catalogue.get("default", "/d/c.md"))
    # A held blob no version references (as a crash could leave a file) is swept.
    await store.connection.run(lambda c: c.execute(
        "INSERT INTO held_blobs (sha, data) VALUES (from_hex(?), ?)", ["0" * 64, b"x"]))
    assert await catalogue.sweep_blobs() == 1
    assert "0" * 64 not in await store.held_blobs.stored_digests()
    await store.aclose()


@pytest.mark.parametrize("row", [
    ("1" * 64, b"not zlib", None),  # does not decompress
    ("2" * 64, b"x", "1" * 64),  # its basis is missing
])
async def test_a_held_blob_that_cannot_be_read_whole_is_corrupt(
        tmp_path: Path, row: tuple[str, bytes, str | None]) -> None:
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    await store.connection.run(lambda c: c.execute(
        "INSERT INTO held_blobs (sha, data, basis) VALUES (from_hex(?), ?, from_hex(?))",
        list(row)))
    with pytest.raises(SheafError) as caught:
        await store.held_blobs.get(row[0])
    assert caught.value.kind is ErrorKind.CORRUPT
    await store.aclose()


async def test_a_version_7_store_keeps_reading_its_blob_files(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    world = World(store)
    world.files.files["/d/old.md"] = SMALL
    await world.ingestion.ingest("/d/old.md")
    document = await world.storage.catalogue.find("default", "/d/old.md")
    assert document is not None
    markdown = await blobs_of(world.storage, world.blobs).get(document.current.markdown_sha)
    await store.aclose()
    with duckdb.connect(str(path)) as connection:  # as schema 7 held it: blobs as files
        as_schema_8(connection)
        connection.execute("DROP TABLE held_blobs")
        connection.execute("UPDATE sheaf_schema SET version = 7")
    for sha, data in ((document.current.fetched_sha, SMALL),
                      (document.current.markdown_sha, markdown)):
        world.blobs.blobs[sha] = data
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION
    assert await reopened.held_blobs.stored_digests() == []
    catalogue = DocumentCatalogue(reopened.storage(), world.blobs)
    old = await catalogue.get("default", "/d/old.md")
    assert (await catalogue.markdown(old)).encode() == markdown
    again = World(reopened)
    again.files.files["/d/new.md"] = b"# New\n\nWritten after the migration.\n"
    assert (await again.ingestion.ingest("/d/new.md")).status.value == "new"
    assert len(await reopened.held_blobs.stored_digests()) == 2
    await reopened.aclose()


def _long_note(n: int) -> bytes:
    """A note with sections long enough for several snippets each."""
    body = " ".join(f"Heron {n} waded past reed bed {i} at dawn." for i in range(90))
    return (f"# Note {n}\n\n## Wading\n\n{body}\n\n## Feeding\n\n{body.replace('waded', 'fed')}"
            "\n").encode()


async def test_a_version_8_store_keeps_every_chunk_and_answer(tmp_path: Path) -> None:
    """Schema 10 stores a chunk's text once: a store written before migrates, and every
    chunk, search answer and quote reads as it did."""
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    world = World(store)
    for n in range(4):
        world.files.files[f"/d/note{n}.md"] = _long_note(n)
        await world.ingestion.ingest(f"/d/note{n}.md")
    documents = await store.catalogue.documents("default")
    chunks = {d.id: await store.catalogue.chunks("default", d.current.id) for d in documents}
    assert sum(len(c) for c in chunks.values()) > 4 * 4  # sections and several snippets
    found = await store.search_index.search_text("default", "heron fed reed", 10)
    snippets = await store.search_index.snippets("default", [i for i, _ in found])
    stored = store.connection.writer.execute(
        "SELECT count(*), count(text), count(retrieval_text) FROM chunks WHERE level = "
        "'snippet'").fetchone()
    assert stored is not None and stored[0] > 0 and stored[1:] == (0, 0)  # each held once
    await store.aclose()
    with duckdb.connect(str(path)) as connection:  # as schema 8 held it: texts in each row
        as_schema_8(connection)
        connection.execute("UPDATE sheaf_schema SET version = 8")
        assert connection.execute("SELECT count(*) FROM chunks WHERE text IS NULL OR "
                                  "retrieval_text IS NULL").fetchone() == (0,)
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION
    assert {d.id: await reopened.catalogue.chunks("default", d.current.id)
            for d in documents} == chunks
    again = await reopened.search_index.search_text("default", "heron fed reed", 10)
    assert again == found
    assert await reopened.search_index.snippets("default", [i for i, _ in again]) == snippets
    for chunk in (c for cs in chunks.values() for c in cs):
        assert chunk.retrieval_text.endswith(chunk.text)
    assert reopened.connection.writer.execute(
        "SELECT count(text), count(retrieval_text) FROM chunks WHERE level = 'snippet'"
    ).fetchone() == (0, 0)
    catalogue = DocumentCatalogue(reopened.storage(), world.blobs)
    for n in range(4):  # every document reads, and each chunk is its Markdown's span
        document = await catalogue.get("default", f"/d/note{n}.md")
        markdown = await catalogue.markdown(document)
        assert all(markdown[c.start:c.end] == c.text for c in chunks[document.id])
    again_world = World(reopened)
    again_world.files.files["/d/new.md"] = _long_note(9).replace(b"Heron", b"Egret")
    assert (await again_world.ingestion.ingest("/d/new.md")).status.value == "new"
    best = await reopened.search_index.search_text("default", "egret", 1)
    assert best and best[0][0].startswith((await catalogue.get("default", "/d/new.md")).id)
    await reopened.aclose()


def _variants() -> list[bytes]:
    """Markdown files of several shapes: tiny, non-ASCII, CRLF, and past zlib's window."""
    long_body = " ".join(f"Tern {i} dived by pier {i * 7 % 13}." for i in range(1600))
    return [b"# A\n", "# Ñandú\n\nÀ l'aube, l'oiseau — 鳥 — courut.\n".encode(),
            b"# Crlf\r\n\r\nLines end\r\nin pairs.\r\n", SMALL,
            f"# Pier\n\n{long_body}\n".encode()]


async def test_a_files_raw_bytes_are_held_with_its_markdown_as_basis(tmp_path: Path) -> None:
    """Raw bytes and Markdown nearly the same text: one is compressed with the other as
    its dictionary, both read back exactly, and deleting the basis (as a removal's
    collection may) leaves the other whole."""
    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = World(store)
    variants = _variants()
    for i, data in enumerate(variants):
        world.files.files[f"/d/{i}.md"] = data
        assert (await world.ingestion.ingest(f"/d/{i}.md")).status.value == "new"
    pairs = []
    for i, data in enumerate(variants):
        document = await world.storage.catalogue.find("default", f"/d/{i}.md")
        assert document is not None
        markdown = await blobs_of(world.storage, world.blobs).get(document.current.markdown_sha)
        assert await store.held_blobs.get(_sha(data)) == data
        pairs.append((_sha(data), data, document.current.markdown_sha, markdown))
    based = {str(r[0]) for r in await store.connection.read(lambda c: c.execute(
        "SELECT lower(hex(sha)) FROM held_blobs WHERE basis IS NOT NULL").fetchall())}
    # Every pair but the four-byte one (where a dictionary saves nothing) has one basis.
    assert [len({raw, md} & based) for raw, _, md, _ in pairs] == [0, 1, 1, 1, 1]
    for raw_sha, data, markdown_sha, markdown in pairs:
        first, second = sorted([(raw_sha, data), (markdown_sha, markdown)])
        await store.held_blobs.delete(first[0])
        assert await store.held_blobs.get(first[0]) is None
        assert await store.held_blobs.get(second[0]) == second[1]
    await store.aclose()


async def test_a_version_10_store_keeps_its_held_blobs(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    world = World(store)
    world.files.files["/d/old.md"] = SMALL
    await world.ingestion.ingest("/d/old.md")
    before = {sha: await store.held_blobs.get(sha)
              for sha in await store.held_blobs.stored_digests()}
    await store.aclose()
    with duckdb.connect(str(path)) as connection:
        as_schema_10(connection)
        assert connection.execute("SELECT count(*) FROM duckdb_columns() WHERE table_name = "
                                  "'held_blobs' AND column_name = 'basis'").fetchone() == (0,)
    reopened = DuckDbKnowledgeStore(path)
    assert (await reopened.catalogue.status()).schema_version == SCHEMA_VERSION
    assert {sha: await reopened.held_blobs.get(sha) for sha in before} == before
    again = World(reopened)
    again.files.files["/d/new.md"] = b"# New\n\nWritten after the migration.\n"
    assert (await again.ingestion.ingest("/d/new.md")).status.value == "new"
    assert await reopened.held_blobs.get(_sha(b"# New\n\nWritten after the migration.\n")) \
        == b"# New\n\nWritten after the migration.\n"
    await reopened.aclose()


def _shape(chunks: object) -> list[tuple[object, ...]]:
    """What a chunk reads as, but for the ids (each store numbers its documents)."""
    return [(c.level, c.index, c.start, c.end, c.text, c.retrieval_text, c.heading_path)
            for c in chunks]  # type: ignore[attr-defined]


async def test_a_sections_text_is_its_held_markdown_and_reads_whole(tmp_path: Path) -> None:
    """Schema 11: a section whose version's Markdown is held is stored without its text;
    its chunks, its snippets (by id and a space's whole) and its quotes read as from a
    store that keeps every text (the in-memory one), across reopening; a document whose
    Markdown is a file keeps its sections' text."""
    path = tmp_path / "kb.duckdb"
    store = DuckDbKnowledgeStore(path)
    world = World(store)
    kept = World()
    notes = {f"/d/note{n}.md": _long_note(n) for n in range(3)} | {"/d/large.md": _large()}
    for name, data in notes.items():
        world.files.files[name] = kept.files.files[name] = data
        assert (await world.ingestion.ingest(name)).status.value == "new"
        assert (await kept.ingestion.ingest(name)).status.value == "new"
    counts = dict(store.connection.writer.execute(
        "SELECT s.key = '/d/large.md', count(c.text) FROM chunks c JOIN sources s ON "
        "s.document_id = c.document_id WHERE c.level = 'section' GROUP BY ALL").fetchall())
    assert counts == {False: 0, True: counts[True]} and counts[True] > 0
    await store.aclose()
    store = DuckDbKnowledgeStore(path)
    catalogue = DocumentCatalogue(store.storage(), world.blobs)
    whole = DocumentCatalogue(kept.storage, kept.blobs)
    for name in notes:
        ours, theirs = await catalogue.get("default", name), await whole.get("default", name)
        chunks = await store.catalogue.chunks("default", ours.current.id)
        assert _shape(chunks) == _shape(await kept.storage.catalogue.chunks(
            "default", theirs.current.id))
        markdown = await catalogue.markdown(ours)
        assert chunks and all(markdown[c.start:c.end] == c.text for c in chunks)
    found = await store.search_index.search_text("default", "heron fed reed", 10)
    ids = [i for i, _ in found]
    assert len(ids) > 3
    first = await store.search_index.snippets("default", ids)  # the space read whole
    one = await store.search_index.snippets("default", ids[:1])  # by id: kept since
    theirs = await kept.storage.index.search_text("default", "heron fed reed", 10)
    assert _shape(first) == _shape(await kept.storage.index.snippets(
        "default", [i for i, _ in theirs]))
    assert one == first[:1]
    await store.aclose()


@pytest.mark.parametrize("reader", ["chunks", "search", "snippets"])
async def test_a_removal_committed_between_a_reads_statements_is_not_seen_half(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    """A chunk read takes its rows, then their sections' Markdown, in later statements.
    A document removed by a write committed between the two must read as it was (one
    snapshot), never as a chunk whose Markdown is gone: a damaged store."""
    from sheaf.adapters.store.duckdb import rows, search_index

    store = DuckDbKnowledgeStore(tmp_path / "kb.duckdb")
    world = World(store)
    for n in range(2):
        world.files.files[f"/d/note{n}.md"] = _long_note(n)
        assert (await world.ingestion.ingest(f"/d/note{n}.md")).status.value == "new"
    catalogue = DocumentCatalogue(store.storage(), world.blobs)
    victim = (await catalogue.get("default", "/d/note0.md")).current
    removed: list[str] = []

    def removing_first(real: Any) -> Any:
        def slices(c: duckdb.DuckDBPyConnection, wanted: Any) -> Any:
            if not removed:
                writer = store.connection.writer.cursor()
                writer.execute("BEGIN TRANSACTION")
                for table in ("chunks", "versions"):
                    writer.execute(f"DELETE FROM {table} WHERE document_id = ?",
                                   [victim.document_id])
                writer.execute("COMMIT")
                writer.close()
                removed.append(victim.document_id)
            return real(c, wanted)
        return slices

    monkeypatch.setattr(rows, "markdown_slices", removing_first(rows.markdown_slices))
    monkeypatch.setattr(search_index, "markdown_slices",
                        removing_first(search_index.markdown_slices))
    if reader == "chunks":
        chunks = await store.catalogue.chunks("default", victim.id)
        assert chunks and all(c.text for c in chunks)
    elif reader == "search":
        found = await store.search_index.search_text("default", "heron fed reed", 10)
        assert found
    else:
        ids = [f"{victim.id}:snippet:0"]
        assert [c.id for c in await store.search_index.snippets("default", ids)] == ids
    assert removed  # the removal did come between the statements
    await store.aclose()
