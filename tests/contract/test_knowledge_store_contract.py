"""The store ports' contract (unit of work, catalogue, search index, policies, answer
cache), run against the in-memory fake, the DuckDB store and the PostgreSQL store alike."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
import pytest

from sheaf.adapters.store.duckdb import lookup_indexes
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.adapters.store.memory.knowledge_store import MemoryKnowledgeStore
from sheaf.adapters.store.postgres.knowledge_store import PostgresKnowledgeStore
from sheaf.application.ports.unit_of_work import UnitOfWork
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.analysis.sections import Section
from sheaf.domain.analysis.text_profile import TextProfile
from sheaf.domain.document.resolved_content import ContentSource
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.embeddings import ChunkVectors, EmbeddingModel, unit_vector
from sheaf.domain.search.search_request import SearchFilters
from sheaf.domain.store.document_analysis import StoredStructure
from sheaf.domain.store.ingestion import SourceKind, SourceRef, SpacePolicy
from sheaf.domain.store.knowledge_records import BlockRow, SourceRecord, VersionRecord
from sheaf.domain.store.version_bundle import VersionBundle
from sheaf.domain.values.frozen_mapping import freeze

pytestmark = pytest.mark.anyio
T0 = datetime(2026, 1, 1, tzinfo=UTC)
URL = SourceRef(SourceKind.URL, "https://journal.example/a", "https://Journal.example/a#x")


Store = DuckDbKnowledgeStore | MemoryKnowledgeStore | PostgresKnowledgeStore


async def write(store: Store, *steps: Callable[[UnitOfWork], object]) -> None:
    """Run `steps` in one unit of work and commit it."""
    async with store.storage().unit_of_work() as work:
        for step in steps:
            step(work)
        await work.commit()


async def save(store: Store, record: VersionRecord, source: SourceRef,
               final_url: str | None = None, caller_source_id: str | None = None,
               chunks: tuple[Chunk, ...] = (), vectors: ChunkVectors | None = None,
               fingerprint: tuple[float, ...] | None = None) -> None:
    await write(store, lambda w: w.versions.add(VersionBundle(
        record, source, None, chunks, vectors, fingerprint, final_url, caller_source_id)))


async def source_of(store: Store, space: str, key: str) -> SourceRecord | None:
    async with store.storage().unit_of_work() as work:
        return await work.sources.get(space, key)


async def holding(store: Store, space: str, sha: str) -> str | None:
    async with store.storage().unit_of_work() as work:
        return await work.sources.holding(space, sha)


async def remove(store: Store, space: str, document_id: str) -> set[str]:
    """Remove a document; the hashes no stored version refers to any more."""
    found = await store.storage().catalogue.find(space, document_id)
    await write(store, lambda w: w.versions.remove(space, document_id))
    if found is None:
        return set()
    return await store.storage().catalogue.unreferenced({sha for v in found.versions
                                     for sha in (v.fetched_sha, v.content_sha,
                                                 v.markdown_sha)})


@pytest.fixture(params=["memory", "duckdb", "duckdb-indexed",
                        pytest.param("postgres", marks=pytest.mark.integration)])
async def store(request: pytest.FixtureRequest, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryKnowledgeStore()
        return
    if request.param == "postgres":
        pg = await PostgresKnowledgeStore.connect(request.getfixturevalue("postgres_schema_url"))
        yield pg
        await pg.aclose()
        return
    if request.param == "duckdb-indexed":
        # A store large enough for its lookup indexes (ADR-0050): every one from the start,
        # so each write and read below also runs with them.
        monkeypatch.setattr(lookup_indexes, "INDEXED_FROM_ROWS", 0)
    duck = DuckDbKnowledgeStore(tmp_path / "store.duckdb")
    if request.param == "duckdb-indexed":
        assert await duck.connection.read(lookup_indexes.existing) == set(
            lookup_indexes.LOOKUP_INDEXES)
    yield duck
    await duck.aclose()


def version(number: int, sha: str, *, doc: str = "doc_1", space: str = "default",
            title: str = "A title") -> VersionRecord:
    return VersionRecord(
        id=f"{doc}.v{number}", document_id=doc, space=space, number=number, fetched_sha=sha,
        content_sha=sha, markdown_sha="m" + sha, content_source="html",
        content_type="text/html", title=title, created_at=T0 + timedelta(minutes=number),
        metadata={"doi": "10.1/x"}, caller_metadata={"team": "blue"},
        caller_version_id=f"caller-{number}", diagnostics=("route: declared text/html",),
        blocks=(BlockRow("heading", 0, 7, level=1), BlockRow("paragraph", 9, 20, pages=(1, 2))),
        characters=20)


async def test_a_saved_version_is_found_by_every_name(store: Store) -> None:
    await save(store, version(1, "s1"), URL, final_url="https://cdn.example/a",
                             caller_source_id="my-source-7")
    for reference in ("doc_1", URL.key, URL.original, "https://cdn.example/a", "my-source-7"):
        found = await store.storage().catalogue.find("default", reference)
        assert found is not None and found.id == "doc_1", reference
    found = await store.storage().catalogue.find("default", "doc_1")
    assert found is not None
    assert found.current.blocks == (BlockRow("heading", 0, 7, level=1),
                                    BlockRow("paragraph", 9, 20, pages=(1, 2)))
    assert found.current.metadata == {"doi": "10.1/x"}
    assert found.current.caller_metadata == {"team": "blue"}
    assert found.current.caller_version_id == "caller-1"
    assert found.current.diagnostics == ("route: declared text/html",)
    assert await store.storage().catalogue.find("other-space", "doc_1") is None
    assert await store.storage().catalogue.find("default", "nothing") is None


async def test_a_content_digest_apart_from_the_fetched_one_is_kept(store: Store) -> None:
    # A decoded body (a gzip file, say) has a digest of its own; most equal the fetched.
    await save(store, attrs.evolve(version(1, "s1"), content_sha="c1"), URL)
    await save(store, version(2, "s2"), URL)
    found = await store.storage().catalogue.find("default", "doc_1")
    assert found is not None
    assert [(v.fetched_sha, v.content_sha) for v in found.versions] == [("s1", "c1"),
                                                                        ("s2", "s2")]
    assert await holding(store, "default", "s2") == "doc_1"


async def test_metadata_of_a_title_alone_reads_back_as_it_was(store: Store) -> None:
    # A text file's metadata is its title; the DuckDB store keeps the title once.
    for number, metadata in enumerate(({"title": "A title"}, {"title": "Another"},
                                       {"title": "A title", "pages": 3}, {}), start=1):
        await save(store, attrs.evolve(version(number, f"s{number}"), metadata=metadata),
                   URL)
    found = await store.storage().catalogue.find("default", "doc_1")
    assert found is not None
    assert [v.metadata for v in found.versions] == [
        {"title": "A title"}, {"title": "Another"}, {"title": "A title", "pages": 3}, {}]


async def test_sources_and_content_lookups(store: Store) -> None:
    await save(store, version(1, "s1"), URL)
    source = await source_of(store, "default", URL.key)
    assert source is not None and source.document_id == "doc_1" and source.fetched_sha == "s1"
    assert await holding(store, "default", "s1") == "doc_1"
    assert await holding(store, "elsewhere", "s1") is None
    alias = SourceRef(SourceKind.FILE, "/data/a.html", "a.html")
    await write(store, lambda w: w.sources.add("default", "doc_1", alias, "s1"))
    found = await store.storage().catalogue.find("default", "/data/a.html")
    assert found is not None and {s.key for s in found.sources} == {URL.key, alias.key}


async def test_a_new_version_supersedes_the_old_one(store: Store) -> None:
    await save(store, version(1, "s1"), URL)
    await save(store, version(2, "s2", title="Second"), URL)
    found = await store.storage().catalogue.find("default", "doc_1")
    assert found is not None
    assert found.current.id == "doc_1.v2" and found.title == "Second"
    assert [v.id for v in found.versions] == ["doc_1.v1", "doc_1.v2"]
    assert found.versions[0].superseded_at is not None
    assert found.versions[1].superseded_at is None
    assert await holding(store, "default", "s1") is None
    assert (await source_of(store, "default", URL.key)).fetched_sha == "s2"  # type: ignore[union-attr]


async def test_listing_status_and_removal(store: Store) -> None:
    await save(store, version(1, "s1"), URL)
    other = SourceRef(SourceKind.URL, "https://journal.example/b", "https://journal.example/b")
    await save(store, version(1, "s9", doc="doc_2"), other)
    assert [d.id for d in await store.storage().catalogue.documents("default")] == [
        "doc_1", "doc_2"] or [d.id for d in await store.storage().catalogue.documents(
            "default")] == ["doc_2", "doc_1"]
    status = await store.storage().catalogue.status()
    assert [(s.space, s.documents, s.versions, s.sources) for s in status.spaces] == [
        ("default", 2, 2, 2)]
    assert status.last_ingest is not None
    released = await remove(store, "default", "doc_1")
    assert released == {"s1", "ms1"}
    assert await store.storage().catalogue.find("default", URL.key) is None
    assert await source_of(store, "default", URL.key) is None
    assert await remove(store, "default", "doc_1") == set()


async def test_the_listing_holds_each_documents_whole_record(store: Store) -> None:
    """Several documents of a space with several versions and sources each: the listing
    gives every one as `find` does, and nothing of another space."""
    for doc in ("doc_1", "doc_2", "doc_3"):
        url = SourceRef(SourceKind.URL, f"https://journal.example/{doc}",
                        f"https://journal.example/{doc}")
        await save(store, version(1, f"{doc}s1", doc=doc), url)
        await save(store, version(2, f"{doc}s2", doc=doc, title=f"{doc} second"), url)
        alias = SourceRef(SourceKind.FILE, f"/data/{doc}.html", f"{doc}.html")
        await write(store, lambda w, d=doc, a=alias: w.sources.add(
            "default", d, a, f"{d}s2"))
    elsewhere = SourceRef(SourceKind.URL, "https://journal.example/x", "https://journal.example/x")
    await save(store, version(1, "x1", doc="doc_9", space="other"), elsewhere)
    listed = await store.storage().catalogue.documents("default")
    assert sorted(d.id for d in listed) == ["doc_1", "doc_2", "doc_3"]
    for record in listed:
        assert record == await store.storage().catalogue.find("default", record.id)
        assert [v.number for v in record.versions] == [1, 2]
        assert len(record.sources) == 2 and record.title == f"{record.id} second"
    assert [d.id for d in await store.storage().catalogue.documents("other")] == ["doc_9"]


async def test_documents_page_by_cursor_in_the_listing_order(store: Store) -> None:
    """Seven documents, five changed at the same moment: pages of three, each starting
    after the last one's cursor, list every document once, newest change first then by
    id, each as `find` gives it; a document written between pages does not shift the
    later ones; another space's are never listed."""
    from sheaf.domain.store.document_pages import PageCursor, changed_at, sort_key

    catalogue = store.storage().catalogue
    for n in (5, 3, 1, 7, 2):  # created at the same moment: ties broken by id
        ref = SourceRef(SourceKind.URL, f"https://j.example/{n}", f"https://j.example/{n}")
        await save(store, version(1, f"p{n}", doc=f"doc_{n}"), ref)
    for n in (4, 6):
        ref = SourceRef(SourceKind.URL, f"https://j.example/{n}", f"https://j.example/{n}")
        await save(store, version(n, f"p{n}", doc=f"doc_{n}"), ref)
    elsewhere = SourceRef(SourceKind.URL, "https://j.example/x", "https://j.example/x")
    await save(store, version(1, "px", doc="doc_9", space="other"), elsewhere)
    expected = [d.id for d in sorted(await catalogue.documents("default"), key=sort_key)]
    assert expected[:2] == ["doc_6", "doc_4"] and expected[2:] == [
        "doc_1", "doc_2", "doc_3", "doc_5", "doc_7"]
    listed: list[str] = []
    cursor = None
    while True:
        page = await catalogue.documents_after("default", cursor, 3)
        for record in page:
            assert record == await catalogue.find("default", record.id)
        listed += [d.id for d in page]
        if len(page) < 3:
            break
        cursor = PageCursor(changed_at(page[-1]), page[-1].id)
        if len(listed) == 3:  # written mid-listing: changed after it began, not listed
            ref = SourceRef(SourceKind.URL, "https://j.example/8", "https://j.example/8")
            await save(store, version(9, "p8", doc="doc_8"), ref)
    assert listed == expected
    assert await catalogue.documents_after("default", None, 1) == [
        await catalogue.find("default", "doc_8")]


async def test_shared_content_is_not_released(store: Store) -> None:
    await save(store, version(1, "same"), URL)
    other = SourceRef(SourceKind.URL, "https://mirror.example/a", "https://mirror.example/a")
    await save(store, version(1, "same", doc="doc_2", space="other"), other)
    assert await remove(store, "default", "doc_1") == set()


async def test_policies_per_space(store: Store) -> None:
    assert await store.storage().policies.policy("default") == SpacePolicy()
    strict = SpacePolicy(ingestion_enabled=False, max_bytes=10,
                         allowed_kinds=frozenset({ContentSource.PDF}))
    await store.storage().policies.set_policy("locked", strict)
    assert await store.storage().policies.policy("locked") == strict
    assert await store.storage().policies.policy("default") == SpacePolicy()


def chunk(version_id: str, level: str, index: int, start: int, end: int) -> Chunk:
    return Chunk(id=f"{version_id}:{level}:{index}", level=level, index=index, start=start,
                 end=end, text="x" * (end - start), tokens=3, heading_path=("Results",),
                 section_label="results", pages=(1, 2) if level == "section" else (),
                 parent_id=None if level == "section" else f"{version_id}:section:0",
                 prev_id=None, next_id=None, retrieval_text="[DOC: t] x")


async def test_chunks_are_saved_with_their_version_and_replaced_by_the_next(
        store: Store) -> None:
    first = (chunk("doc_1.v1", "section", 0, 0, 20), chunk("doc_1.v1", "snippet", 0, 0, 10),
             chunk("doc_1.v1", "snippet", 1, 12, 20))
    await save(store, version(1, "s1"), URL, chunks=first)
    assert await store.storage().catalogue.chunks("default", "doc_1.v1") == first
    second = (chunk("doc_1.v2", "section", 0, 0, 9), chunk("doc_1.v2", "snippet", 0, 0, 9))
    await save(store, version(2, "s2"), URL, chunks=second)
    assert await store.storage().catalogue.chunks("default", "doc_1.v1") == ()
    assert await store.storage().catalogue.chunks("default", "doc_1.v2") == second
    rebuilt = (chunk("doc_1.v2", "section", 0, 0, 9),)
    await write(store, lambda w: w.chunks.replace("default", "doc_1.v2", rebuilt, None))
    assert await store.storage().catalogue.chunks("default", "doc_1.v2") == rebuilt
    await remove(store, "default", "doc_1")
    assert await store.storage().catalogue.chunks("default", "doc_1.v2") == ()


def text_chunk(version_id: str, index: int, words: str) -> Chunk:
    return Chunk(id=f"{version_id}:snippet:{index}", level="snippet", index=index, start=0,
                 end=len(words), text=words, tokens=3, heading_path=(), section_label=None,
                 pages=(), parent_id=None, prev_id=None, next_id=None,
                 retrieval_text=f"[DOC: t] {words}")


async def test_text_search_ranks_current_snippets_of_the_space(store: Store) -> None:
    await save(store, version(1, "s1"), URL, chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),
        text_chunk("doc_1.v1", 1, "foxes wait for people to sleep")))
    other = SourceRef(SourceKind.URL, "https://journal.example/b", "https://journal.example/b")
    await save(store, version(1, "s2", doc="doc_2"), other, chunks=(
        text_chunk("doc_2.v1", 0, "tides and tides and seagrass light under the tides"),))
    elsewhere = SourceRef(SourceKind.URL, "https://journal.example/c",
                          "https://journal.example/c")
    await save(store, version(1, "s3", doc="doc_3", space="other"), elsewhere, chunks=(
        text_chunk("doc_3.v1", 0, "seagrass tides everywhere"),))
    found = await store.storage().index.search_text("default", "seagrass tides", 10)
    assert {i for i, _ in found} == {"doc_1.v1:snippet:0", "doc_2.v1:snippet:0"}
    assert all(score > 0 for _, score in found)
    assert found == sorted(found, key=lambda pair: -pair[1])
    assert await store.storage().index.search_text("default", "zebra", 10) == []
    # A new version's chunks replace the old ones in the index.
    await save(store, version(2, "s4"), URL, chunks=(
        text_chunk("doc_1.v2", 0, "zebra crossings"),))
    assert [i for i, _ in await store.storage().index.search_text("default", "zebra", 10)] == [
        "doc_1.v2:snippet:0"]
    assert "doc_1.v1:snippet:0" not in {
        i for i, _ in await store.storage().index.search_text("default", "seagrass", 10)}


async def test_a_term_the_query_repeats_weighs_more(store: Store) -> None:
    await save(store, version(1, "s1"), URL, chunks=(
        text_chunk("doc_1.v1", 0, "tides shape the coast"),
        text_chunk("doc_1.v1", 1, "seagrass shapes the coast")))
    ranked = await store.storage().index.search_text("default", "tides tides tides seagrass", 10)
    assert [i for i, _ in ranked] == ["doc_1.v1:snippet:0", "doc_1.v1:snippet:1"]
    flipped = await store.storage().index.search_text(
        "default", "tides seagrass seagrass seagrass", 10)
    assert [i for i, _ in flipped] == ["doc_1.v1:snippet:1", "doc_1.v1:snippet:0"]


def prefixed_snippet(version_id: str, index: int, body: str, title: str,
                     path: tuple[str, ...], context: str | None = None) -> Chunk:
    """A snippet whose retrieval text is headed as chunking and enrichment head it."""
    prefix = f"[CONTEXT: {context}]\n" if context else ""
    return attrs.evolve(text_chunk(version_id, index, body), heading_path=path,
                        retrieval_text=f"{prefix}[DOC: {title}] [PATH: {' > '.join(path)}] "
                                       f"[SECTION: other]\n{body}")


async def test_the_prefix_markers_are_no_words_but_what_they_hold_ranks(store: Store) -> None:
    await save(store, version(1, "s1"), URL, chunks=(
        prefixed_snippet("doc_1.v1", 0, "Herons wade the weir at dawn.", "Wading birds",
                         ("Field notes",), context="A survey of the estuary"),
        prefixed_snippet("doc_1.v1", 1, "The path along the dune is closed.", "Wading birds",
                         ("Field notes",))))
    index = store.storage().index
    for marker in ("doc", "section", "context", "DOC SECTION"):
        assert await index.search_text("default", marker, 10) == [], marker
    path = await index.search_text("default", "path", 10)
    assert [i for i, _ in path] == ["doc_1.v1:snippet:1"]  # its own word, not the marker
    # The title, the heading and the context are words of the snippets they head.
    assert len(await index.search_text("default", "wading field", 10)) == 2
    assert [i for i, _ in await index.search_text("default", "estuary", 10)] == [
        "doc_1.v1:snippet:0"]
    # Markers count in no snippet's length: a snippet headed by them scores as one that
    # holds the same words without them.
    headed = prefixed_snippet("doc_2.v1", 0, "Otters.", "Marsh", ("Notes",))
    bare = attrs.evolve(text_chunk("doc_2.v1", 1, "Otters."),
                        retrieval_text="Marsh] Notes] other]\nOtters.")
    other = SourceRef(SourceKind.URL, "https://journal.example/b", "https://journal.example/b")
    await save(store, version(1, "s2", doc="doc_2"), other, chunks=(headed, bare))
    scores = dict(await index.search_text("default", "otters", 10))
    assert scores["doc_2.v1:snippet:0"] == pytest.approx(scores["doc_2.v1:snippet:1"],
                                                         rel=1e-9)


MODEL = EmbeddingModel("test-model", 3)


def vectors_of(version_id: str, *vectors: tuple[float, ...],
               model: EmbeddingModel = MODEL) -> ChunkVectors:
    return ChunkVectors(model, tuple(f"{version_id}:snippet:{i}" for i in range(len(vectors))),
                        tuple(unit_vector(v) for v in vectors))


async def seed_two_documents(store: Store) -> None:
    await save(store, version(1, "s1"), URL, chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),
        text_chunk("doc_1.v1", 1, "foxes wait for people to sleep")),
        vectors=vectors_of("doc_1.v1", (1, 0, 0), (0, 1, 0)))
    other = SourceRef(SourceKind.URL, "https://journal.example/b", "https://journal.example/b")
    pdf = attrs.evolve(version(1, "s2", doc="doc_2"), content_source="pdf",
                       caller_metadata={"team": "red"})
    await save(store, pdf, other, chunks=(
        attrs.evolve(text_chunk("doc_2.v1", 0, "tides under seagrass light"),
                     section_label="results"),),
        vectors=vectors_of("doc_2.v1", (0.9, 0.1, 0)))


async def test_vector_search_ranks_by_cosine(store: Store) -> None:
    assert await store.storage().index.embedding_model("default") is None
    await seed_two_documents(store)
    assert await store.storage().index.embedding_model("default") == MODEL
    found = await store.storage().index.search_vectors("default", MODEL, unit_vector((1, 0, 0)), 10)
    assert [i for i, _ in found] == ["doc_1.v1:snippet:0", "doc_2.v1:snippet:0",
                                        "doc_1.v1:snippet:1"]
    assert found[0][1] == pytest.approx(1.0, abs=1e-6)
    assert found[2][1] == pytest.approx(0.0, abs=1e-6)
    assert len(await store.storage().index.search_vectors(
        "default", MODEL, unit_vector((1, 0, 0)), 1)) == 1


async def test_another_model_is_refused_for_search_and_for_storing(store: Store) -> None:
    await seed_two_documents(store)
    other = EmbeddingModel("other-model", 3)
    with pytest.raises(SheafError) as caught:
        await store.storage().index.search_vectors("default", other, unit_vector((1, 0, 0)), 10)
    assert caught.value.kind is ErrorKind.EMBEDDING_MISMATCH
    assert "test-model" in caught.value.message and "reindex --embeddings" in caught.value.message
    third = SourceRef(SourceKind.URL, "https://journal.example/c", "https://journal.example/c")
    with pytest.raises(SheafError):
        await save(store, version(1, "s3", doc="doc_3"), third, chunks=(
            text_chunk("doc_3.v1", 0, "x"),), vectors=vectors_of("doc_3.v1", (1, 0, 0),
                                                                  model=other))
    assert await store.storage().catalogue.find("default", "doc_3") is None  # nothing half-written


async def test_reset_and_replace_vectors_switch_the_model(store: Store) -> None:
    await seed_two_documents(store)
    wider = EmbeddingModel("wider", 4)
    await write(store, lambda w: w.chunks.reset_vectors("default", wider))
    assert await store.storage().index.embedding_model("default") == wider
    assert await store.storage().index.search_vectors(
        "default", wider, unit_vector((1, 0, 0, 0)), 10) == []
    await write(store, lambda w: w.chunks.replace_vectors("default", "doc_1.v1", vectors_of(
        "doc_1.v1", (0, 0, 0, 1), (1, 0, 0, 0), model=wider)))
    found = await store.storage().index.search_vectors(
        "default", wider, unit_vector((1, 0, 0, 0)), 10)
    assert [i for i, _ in found][:1] == ["doc_1.v1:snippet:1"]
    with pytest.raises(SheafError):
        await write(store, lambda w: w.chunks.replace_vectors(
            "default", "doc_9.v1", vectors_of("doc_9.v1", model=wider)))


async def test_filters_apply_to_both_rankings(store: Store) -> None:
    await seed_two_documents(store)
    query = unit_vector((1, 0, 0))
    cases = {
        SearchFilters(document_ids=frozenset({"doc_2"})): {"doc_2.v1:snippet:0"},
        SearchFilters(section_labels=frozenset({"results"})): {"doc_2.v1:snippet:0"},
        SearchFilters(content_sources=frozenset({"html"})): {"doc_1.v1:snippet:0"},
        SearchFilters(metadata=(("team", "blue"),)): {"doc_1.v1:snippet:0"},
        SearchFilters(metadata=(("team", "green"),)): set(),
        SearchFilters(excluded_section_labels=frozenset({"results"})): {"doc_1.v1:snippet:0"},
    }
    for filters, expected in cases.items():
        text = {i for i, _ in await store.storage().index.search_text(
            "default", "seagrass", 10, filters)}
        assert text == expected, filters
        vector = {i for i, _ in await store.storage().index.search_vectors(
            "default", MODEL, query, 10, filters)}
        assert vector & {"doc_1.v1:snippet:0", "doc_2.v1:snippet:0"} == expected, filters


async def test_removal_and_new_versions_leave_no_stale_rows_in_either_index(
        store: Store) -> None:
    await seed_two_documents(store)
    await save(store, version(2, "s9"), URL, chunks=(
        text_chunk("doc_1.v2", 0, "zebra crossings"),),
        vectors=vectors_of("doc_1.v2", (0, 0, 1)))
    everything = unit_vector((1, 1, 1))
    ids = {i for i, _ in await store.storage().index.search_vectors(
        "default", MODEL, everything, 10)}
    assert ids == {"doc_1.v2:snippet:0", "doc_2.v1:snippet:0"}
    assert {i for i, _ in await store.storage().index.search_text(
        "default", "seagrass tides", 10)} == {"doc_2.v1:snippet:0"}
    await remove(store, "default", "doc_2")
    assert {i for i, _ in await store.storage().index.search_vectors(
        "default", MODEL, everything, 10)} == {"doc_1.v2:snippet:0"}
    assert await store.storage().index.search_text("default", "seagrass tides", 10) == []


async def test_similar_documents_by_fingerprint(store: Store) -> None:
    await save(store, version(1, "s1"), URL, fingerprint=unit_vector([1.0] + [0.0] * 1023))
    close = unit_vector([1.0, 0.2] + [0.0] * 1022)
    found = await store.storage().index.similar_documents("default", close, 0.9)
    assert [d for d, _ in found] == ["doc_1"]
    assert found[0][1] == pytest.approx(1 / (1.04 ** 0.5), abs=1e-5)
    assert await store.storage().index.similar_documents("default", close, 0.99) == []
    assert await store.storage().index.similar_documents("other", close, 0.5) == []
    await remove(store, "default", "doc_1")
    assert await store.storage().index.similar_documents("default", close, 0.5) == []


async def test_snippets_by_id_in_the_order_asked(store: Store) -> None:
    await seed_two_documents(store)
    wanted = ["doc_2.v1:snippet:0", "doc_9.v1:snippet:0", "doc_1.v1:snippet:1"]
    found = await store.storage().index.snippets("default", wanted)
    assert [c.id for c in found] == ["doc_2.v1:snippet:0", "doc_1.v1:snippet:1"]
    assert found[1].text == "foxes wait for people to sleep"
    assert await store.storage().index.snippets("other", wanted) == []


async def test_enrichment_is_saved_with_chunks_vectors_and_diagnostics(
        store: Store) -> None:
    await seed_two_documents(store)
    enriched = tuple(attrs.evolve(c, context="From a paper on tides.",
                                  retrieval_text="[CONTEXT: From a paper on tides.]\n"
                                                 + c.retrieval_text)
                     for c in await store.storage().catalogue.chunks("default", "doc_1.v1"))
    summary = {"summary": "A paper.", "concepts": ["tides"], "generated": True}
    await write(store, lambda w: w.versions.annotate("default", "doc_1.v1", summary,
                                                     ("enrich: done",)),
                lambda w: w.chunks.replace("default", "doc_1.v1", enriched, vectors_of(
                    "doc_1.v1", (0, 0, 1), (0, 1, 0))))
    found = await store.storage().catalogue.find("default", "doc_1")
    assert found is not None and found.current.enrichment == freeze(summary)
    assert found.current.diagnostics[-1] == "enrich: done"
    assert await store.storage().catalogue.chunks("default", "doc_1.v1") == enriched
    top = await store.storage().index.search_vectors("default", MODEL, unit_vector((0, 0, 1)), 1)
    assert top[0][0] == "doc_1.v1:snippet:0"
    assert {i for i, _ in await store.storage().index.search_text("default", "paper", 10)} >= {
        "doc_1.v1:snippet:0"}  # the context is searchable
    await write(store, lambda w: w.versions.annotate("default", "doc_1.v1", None, ()))
    assert (await store.storage().catalogue.find(  # type: ignore[union-attr]
        "default", "doc_1")).current.enrichment == freeze(summary)
    with pytest.raises(SheafError):
        await write(store, lambda w: w.versions.annotate("default", "doc_9.v1", summary, ()))


async def test_the_enrichment_cache_and_space_enrichments(store: Store) -> None:
    assert await store.storage().answers.cached_text("k") is None
    await store.storage().answers.cache_text("k", "an answer")
    assert await store.storage().answers.cached_text("k") == "an answer"
    await store.storage().policies.set_policy(
        "papers", SpacePolicy(enrich=frozenset({"summary", "context"})))
    assert (await store.storage().policies.policy("papers")).enrich == {"summary", "context"}


async def test_many_snippets_by_id_keep_the_order_asked(store: Store) -> None:
    chunks = tuple(text_chunk("doc_1.v1", i, f"words number {i}") for i in range(50))
    await save(store, version(1, "s1"), URL, chunks=chunks)
    wanted = [f"doc_1.v1:snippet:{i}" for i in (49, 3, 77, *range(10, 48))]
    found = await store.storage().index.snippets("default", wanted)
    assert [c.id for c in found] == [i for i in wanted if i != "doc_1.v1:snippet:77"]
    assert await store.storage().index.snippets("other", wanted) == []


async def test_writes_land_only_on_commit(store: Store) -> None:
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(version(1, "s1"), URL))
    # Left without committing:
    assert await store.storage().catalogue.find("default", "doc_1") is None
    with pytest.raises(RuntimeError):
        async with store.storage().unit_of_work() as work:
            work.versions.add(VersionBundle(version(1, "s1"), URL))
            raise RuntimeError("the use case failed")
    assert await store.storage().catalogue.find("default", "doc_1") is None
    async with store.storage().unit_of_work() as work:
        work.versions.add(VersionBundle(version(1, "s1"), URL))
        await work.rollback()
        await work.commit()
    assert await store.storage().catalogue.find("default", "doc_1") is None


@pytest.mark.parametrize("step", ["replace", "replace_vectors", "annotate", "structure"])
async def test_writes_to_an_unknown_version_are_refused_with_the_whole_batch(
        store: Store, step: str) -> None:
    """Both stores refuse the same way, and nothing of the batch is applied."""
    bad: dict[str, Callable[[UnitOfWork], object]] = {
        "replace": lambda w: w.chunks.replace("default", "doc_9.v1", (), None),
        "replace_vectors": lambda w: w.chunks.replace_vectors("default", "doc_9.v1",
                                                              vectors_of("doc_9.v1")),
        "annotate": lambda w: w.versions.annotate("default", "doc_9.v1", None, ("x",)),
        "structure": lambda w: w.versions.save_structure(
            "default", "doc_9.v1", StoredStructure((), TextProfile(0, 0, (), (), ()))),
    }
    with pytest.raises(SheafError) as caught:
        await write(store, lambda w: w.versions.add(VersionBundle(version(1, "s1"), URL)),
                    bad[step])
    assert caught.value.kind is ErrorKind.DOCUMENT_NOT_FOUND
    assert "doc_9.v1" in caught.value.message
    assert await store.storage().catalogue.find("default", "doc_1") is None
    await save(store, version(1, "s1"), URL)
    with pytest.raises(SheafError):  # a version of another space is unknown here too
        await write(store, lambda w: w.chunks.replace("other", "doc_1.v1", (), None))


async def test_text_ranking_order_is_the_same_in_every_store(store: Store) -> None:
    await save(store, version(1, "s1"), URL, chunks=(
        text_chunk("doc_1.v1", 0, "seagrass meadows grow with the tides"),
        text_chunk("doc_1.v1", 1, "tides and tides under the seagrass light"),
        text_chunk("doc_1.v1", 2, "a long note on foxes that mentions tides once only"),
        text_chunk("doc_1.v1", 3, "foxes wait for people to sleep")))
    ranked = await store.storage().index.search_text("default", "seagrass tides", 10)
    assert [i for i, _ in ranked] == ["doc_1.v1:snippet:1", "doc_1.v1:snippet:0",
                                        "doc_1.v1:snippet:2"]
    assert [i for i, _ in await store.storage().index.search_text(
        "default", "foxes sleeping", 10)] == [
        "doc_1.v1:snippet:3", "doc_1.v1:snippet:2"]  # stemmed: sleeping matches sleep


async def test_citations_for_many_documents_at_once(store: Store) -> None:
    await save(store, version(1, "s1"), URL, final_url="https://cdn.example/a")
    local = SourceRef(SourceKind.FILE, "/data/b.md", "b.md")
    await save(store, version(1, "s2", doc="doc_2", title="Bee"), local)
    cited = await store.storage().catalogue.citations(
        "default", ["doc_2", "doc_9", "doc_1", "doc_2"])
    assert set(cited) == {"doc_1", "doc_2"}
    assert cited["doc_1"].url == "https://cdn.example/a" and cited["doc_1"].title == "A title"
    assert cited["doc_2"].location.path == "/data/b.md" and cited["doc_2"].url is None
    assert cited["doc_1"] == (await store.storage().catalogue.find("default", "doc_1")).citation  # type: ignore[union-attr]
    assert await store.storage().catalogue.citations("other", ["doc_1"]) == {}
    assert await store.storage().catalogue.citations("default", []) == {}


async def test_structure_is_kept_with_its_version(store: Store) -> None:
    structure = StoredStructure(
        (Section(0, "Results", "results", 2, 0, 20, ("Results",)),),
        TextProfile(20, 4, ((9, 20),), ((9, 20),), ((0, 7), (9, 20))))
    await write(store, lambda w: w.versions.add(VersionBundle(version(1, "s1"), URL,
                                                              structure)))
    assert await store.storage().catalogue.structure("default", "doc_1.v1") == structure
    assert await store.storage().catalogue.structure("default", "doc_9.v1") is None
    await write(store, lambda w: w.versions.add(VersionBundle(version(2, "s2"), URL)))
    assert await store.storage().catalogue.structure("default", "doc_1.v2") is None
    await write(store, lambda w: w.versions.save_structure("default", "doc_1.v2", structure))
    assert await store.storage().catalogue.structure("default", "doc_1.v2") == structure
    await remove(store, "default", "doc_1")
    assert await store.storage().catalogue.structure("default", "doc_1.v2") is None


async def test_latest_version_numbers(store: Store) -> None:
    async with store.storage().unit_of_work() as work:
        assert await work.versions.latest_number("default", "doc_1") == 0
    await save(store, version(1, "s1"), URL)
    await save(store, version(2, "s2"), URL)
    async with store.storage().unit_of_work() as work:
        assert await work.versions.latest_number("default", "doc_1") == 2
        assert await work.versions.latest_number("other", "doc_1") == 0
