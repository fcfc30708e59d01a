"""Search over ingested documents: the store is DuckDB in memory (ranking is the real
index's), every other port a fake. The same search on PostgreSQL is the store contract's
(tests/contract/) and tests/adapters/test_postgres_search_statements.py's."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from sheaf.adapters.models.hashing_embedder import HashingEmbedder
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.store.duckdb.knowledge_store import DuckDbKnowledgeStore
from sheaf.application.ingestion.reindexing import Reindexing
from sheaf.application.search.search import Search, document_of_chunk
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.application.store.held_first_blobs import blobs_of
from sheaf.domain.analysis.chunking import Chunk
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.embeddings import cosine
from sheaf.domain.search.feature_hashing import shingle_fingerprint
from sheaf.domain.search.search_request import Expansion, SearchMode
from sheaf.domain.store.ingestion import IngestStatus
from tests.application.world import World

pytestmark = pytest.mark.anyio


@pytest.fixture
async def indexed() -> AsyncIterator[DuckDbKnowledgeStore]:
    """A store with a real search index: DuckDB in memory."""
    store = DuckDbKnowledgeStore(":memory:")
    yield store
    await store.aclose()


async def test_hits_carry_their_document_and_span(indexed: DuckDbKnowledgeStore) -> None:
    world = World(indexed)
    world.files.files["/d/tides.md"] = b"# Tides\n\n## Results\n\nSeagrass grew with the tides.\n"
    world.files.files["/d/foxes.md"] = b"# Foxes\n\nFoxes wait for people to sleep.\n"
    for path in world.files.files:
        await world.ingestion.ingest(path)
    hits = await Search(world.storage).search("default", "seagrass tides", 5)
    assert hits and hits[0].title == "Tides"
    top = hits[0]
    document = await world.storage.catalogue.find("default", top.document_id)
    assert document is not None
    blobs = blobs_of(world.storage, world.blobs)  # a small document's are held
    markdown = (await blobs.get(document.current.markdown_sha)).decode()
    assert markdown[top.chunk.start:top.chunk.end] == top.chunk.text
    assert "Seagrass grew with the tides." in top.chunk.text
    assert all(h.document_id != "/d/foxes.md" for h in hits)


def test_document_of_chunk() -> None:
    assert document_of_chunk("doc_ab12.v3:snippet:7") == "doc_ab12"


TIDES = (b"# Tides\n\n## Methods\n\nWe counted seagrass shoots at low tide every week.\n\n"
         b"## Results\n\nSeagrass grew with the tides. Shoot density doubled in spring.\n\n"
         b"## Discussion\n\nTidal exposure explains the growth of the meadow.\n")
FOXES = b"# Foxes\n\nFoxes wait for people to sleep. Urban foxes eat from bins.\n"


async def seeded(store: DuckDbKnowledgeStore, embedder: MemoryEmbedder | None = None
                 ) -> tuple[World, Search]:
    world = World(store)
    if embedder is not None:
        world.ingestion.embedder = embedder
    world.files.files["/d/tides.md"] = TIDES
    world.files.files["/d/foxes.md"] = FOXES
    for path in ("/d/tides.md", "/d/foxes.md"):
        await world.ingestion.ingest(path)
    return world, Search(world.storage, world.ingestion.embedder,
                         DocumentStructure(DocumentCatalogue(world.storage, world.blobs)))


async def test_each_mode_ranks_and_reports_its_scores(indexed: DuckDbKnowledgeStore) -> None:
    _, search = await seeded(indexed)
    bm25 = await search.search("default", "seagrass tides", 5, mode=SearchMode.BM25)
    vector = await search.search("default", "seagrass tides", 5, mode=SearchMode.VECTOR)
    hybrid = await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    assert bm25[0].bm25_score and bm25[0].vector_score is None
    assert vector[0].vector_score is not None and vector[0].bm25_score is None
    assert hybrid[0].bm25_score and hybrid[0].vector_score is not None
    assert "Seagrass grew" in hybrid[0].chunk.text
    # RRF: 1 / (60 + rank) summed over the two rankings.
    top = hybrid[0].chunk.id
    ranks = [[h.chunk.id for h in hits].index(top) + 1 for hits in (bm25, vector)]
    assert hybrid[0].score == pytest.approx(sum(1 / (60 + r) for r in ranks))
    assert hybrid[0].as_dict()["section"] == "results"


async def test_auto_is_hybrid_only_with_a_semantic_embedder(indexed: DuckDbKnowledgeStore) -> None:
    _, search = await seeded(indexed)  # the World's embedder is a semantic stand-in
    (auto,) = await search.search("default", "seagrass tides", 1)
    assert auto.bm25_score and auto.vector_score is not None
    search.embedder = HashingEmbedder()  # lexical: BM25 alone (and no mismatch check)
    (lexical,) = await search.search("default", "seagrass tides", 1)
    assert lexical.vector_score is None


async def test_grouping_keeps_the_best_snippet_per_document(indexed: DuckDbKnowledgeStore) -> None:
    _, search = await seeded(indexed)
    hits = await search.search("default", "seagrass foxes tides", 10, group_by_document=True,
                               mode=SearchMode.BM25)
    assert len({h.document_id for h in hits}) == len(hits) == 2


async def test_expansions_are_exact_spans_of_the_document(indexed: DuckDbKnowledgeStore) -> None:
    world, search = await seeded(indexed)
    for expand in Expansion:
        (hit,) = await search.search("default", "shoot density doubled", 1, expand=expand,
                                     mode=SearchMode.BM25)
        document = await world.storage.catalogue.find("default", hit.document_id)
        assert document is not None
        text = (await blobs_of(world.storage, world.blobs).get(
            document.current.markdown_sha)).decode()
        context = hit.context
        assert context is not None and context.kind == expand.value
        assert text[context.start:context.end] == context.text
        assert context.start <= hit.chunk.start and hit.chunk.end <= context.end
        if expand is Expansion.PARENT_SECTION:
            assert context.text.startswith("## Results") and "Methods" not in context.text
        if expand is Expansion.SECTION_NEIGHBOURHOOD:
            assert "## Methods" in context.text and "## Discussion" in context.text


async def test_a_space_embedded_by_another_model_is_refused_clearly(
        indexed: DuckDbKnowledgeStore) -> None:
    world, search = await seeded(indexed)
    search.embedder = MemoryEmbedder(name="another", dimension=16)
    with pytest.raises(SheafError) as caught:
        await search.search("default", "seagrass", 3, mode=SearchMode.HYBRID)
    assert caught.value.kind is ErrorKind.EMBEDDING_MISMATCH
    world.ingestion.embedder = search.embedder
    world.files.files["/d/new.md"] = b"# New\n\nAnother text.\n"
    result = await world.ingestion.ingest("/d/new.md")
    assert result.error_kind == "embedding_mismatch"
    assert await world.storage.catalogue.find("default", "/d/new.md") is None


async def test_reindex_embeddings_moves_the_space_to_the_new_model(
        indexed: DuckDbKnowledgeStore) -> None:
    world, _ = await seeded(indexed)
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    wider = MemoryEmbedder(name="wider", dimension=32)
    assert await Reindexing(world.storage, structure, wider).reindex(
        "default", chunks=False, embeddings=True) == 2
    assert await world.storage.index.embedding_model("default") == await wider.model()
    hits = await Search(world.storage, wider).search("default", "seagrass", 3,
                                                   mode=SearchMode.VECTOR)
    assert hits and "eagrass" in hits[0].chunk.text


async def test_bad_queries_are_typed_errors(indexed: DuckDbKnowledgeStore) -> None:
    _, search = await seeded(indexed)
    for query, k in (("  ", 5), ("seagrass", 0)):
        with pytest.raises(SheafError) as caught:
            await search.search("default", query, k)
        assert caught.value.kind is ErrorKind.INVALID_QUERY
    search.embedder = None
    with pytest.raises(SheafError):
        await search.search("default", "seagrass", 3, mode=SearchMode.VECTOR)


async def test_a_near_duplicate_is_flagged_at_the_threshold_and_not_below() -> None:
    world = World()  # the fake: DuckDB keeps fingerprints as FLOAT, this is exact
    base = " ".join(f"word{i}" for i in range(400))
    world.files.files["/d/a.md"] = f"# A\n\n{base}\n".encode()
    world.files.files["/d/b.md"] = f"# A\n\n{base} and a short coda\n".encode()
    first = await world.ingestion.ingest("/d/a.md")
    a = await world.storage.catalogue.find("default", "/d/a.md")
    assert first.near_duplicate_of is None and a is not None
    chunks_b = " ".join(c.text for c in (await seeded_chunks(world, "/d/b.md")))
    chunks_a = " ".join(c.text for c in await world.storage.catalogue.chunks(
        "default", a.current.id) if c.level == "snippet")
    exact = cosine(shingle_fingerprint(chunks_a), shingle_fingerprint(chunks_b))
    assert 0.9 < exact < 1.0
    world.ingestion.near_duplicate_threshold = math.nextafter(exact, 1.0)  # just above
    assert (await world.ingestion.ingest("/d/b.md")).near_duplicate_of is None
    await DocumentCatalogue(world.storage, world.blobs).remove("default", "/d/b.md")
    world.ingestion.near_duplicate_threshold = exact  # exactly at it
    flagged = await world.ingestion.ingest("/d/b.md")
    assert flagged.status is IngestStatus.NEW and flagged.near_duplicate_of == a.id
    stored = await world.storage.catalogue.find("default", "/d/b.md")
    assert stored is not None and stored.current.near_duplicate_of == a.id
    assert stored.current.near_duplicate_similarity == pytest.approx(exact)


async def seeded_chunks(world: World, path: str) -> list[Chunk]:
    """The snippets ingestion would make of `path`, without storing it."""
    from sheaf.domain.store.document_analysis import document_chunks

    extraction = await world.ingestion._extraction.extract(world.files.files[path],
                                                           declared_type="text/markdown",
                                                           location=path)
    return [c for c in document_chunks(extraction.document, "x.v1") if c.level == "snippet"]


class _CountingCursor:
    """A DuckDB cursor that counts the statements run through it."""

    def __init__(self, cursor: Any, counts: list[int]) -> None:
        self._cursor, self._counts = cursor, counts

    def execute(self, *args: Any) -> Any:
        self._counts[0] += 1
        return self._cursor.execute(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


@pytest.mark.integration  # 60 ingests into DuckDB first: `make test-integration`
async def test_citations_cost_the_same_queries_whatever_k() -> None:
    store = DuckDbKnowledgeStore(":memory:")
    await World(store).ingest_heron_notes(60)
    search = Search(store.storage())
    counts = [0]
    cursors = []
    while not store.connection._free_cursors.empty():
        cursors.append(store.connection._free_cursors.get())
    for cursor in cursors:
        store.connection._free_cursors.put(_CountingCursor(cursor, counts))  # type: ignore[arg-type]
    store.connection.writer = _CountingCursor(store.connection.writer, counts)  # type: ignore[assignment]
    # The first search after the writes ranks by SQL: the query's terms, the ranking,
    # the snippets, their versions' Markdown names and the held Markdown (schema 11 keeps
    # a section's text as a slice of it), the citations; not one per hit.
    assert len(await search.search("default", "heron", 50)) == 50
    assert 3 <= counts[0] <= 6
    await search.search("default", "heron", 1)  # loads the space's postings
    for k in (1, 50):  # one store for both: ingesting the 60 notes is most of the time
        counts[0] = 0
        hits = await search.search("default", "heron", k)
        assert len(hits) == k and len({h.document_id for h in hits}) == k
        assert all(h.title and h.location and h.location.path for h in hits)
        assert all(h.text == h.chunk.text and "heron" in h.text for h in hits)
        # Ranked from the held postings on the caller's thread (the word stemmed before),
        # this small space's snippets and citations read whole by the first search after
        # the writes: no statement at all.
        assert counts[0] == 0, k
    await store.aclose()


async def test_a_repeated_query_is_embedded_once_and_ranks_the_same(
        indexed: DuckDbKnowledgeStore) -> None:
    embedder = MemoryEmbedder()
    _, search = await seeded(indexed, embedder)
    embedder.calls.clear()
    first = await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    again = await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    vector = await search.search("default", "seagrass tides", 5, mode=SearchMode.VECTOR)
    assert embedder.calls == [["seagrass tides"]]
    assert [h.chunk_id for h in again] == [h.chunk_id for h in first]
    assert [h.vector_score for h in again] == [h.vector_score for h in first]
    assert vector and all(h.vector_score is not None for h in vector)
    await search.search("default", "foxes", 5, mode=SearchMode.HYBRID)
    assert embedder.calls == [["seagrass tides"], ["foxes"]]


async def test_a_failing_embedding_fails_hybrid_with_its_own_error(
        indexed: DuckDbKnowledgeStore) -> None:
    embedder = MemoryEmbedder()
    _, search = await seeded(indexed, embedder)
    embedder.failure = SheafError(ErrorKind.EMBEDDING_FAILED, "the model is away")
    with pytest.raises(SheafError) as raised:  # run beside BM25, raised as itself
        await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    assert raised.value.kind is ErrorKind.EMBEDDING_FAILED


async def test_a_held_hybrid_search_with_the_hashing_embedder_needs_no_thread(
        indexed: DuckDbKnowledgeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    world, _ = await seeded(indexed)
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    hashing = HashingEmbedder()
    await Reindexing(world.storage, structure, hashing).reindex(
        "default", chunks=False, embeddings=True)
    search = Search(world.storage, hashing, structure)
    reference = await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    await search.search("default", "seagrass shoots", 5, mode=SearchMode.HYBRID)  # loads both
    handed: list[object] = []
    real = anyio.to_thread.run_sync

    async def counted(work: Any, *args: Any, **kwargs: Any) -> Any:
        handed.append(work)
        return await real(work, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    # Sub-millisecond work each: the query hashed, both rankings from held matrices, the
    # snippets and citations kept. A thread hand-over would cost more than all of it.
    again = await search.search("default", "seagrass tides", 5, mode=SearchMode.HYBRID)
    fresh = await search.search("default", "tidal meadow growth", 5, mode=SearchMode.HYBRID)
    assert handed == []
    assert [(h.chunk_id, h.score, h.bm25_score, h.vector_score) for h in again] == [
        (h.chunk_id, h.score, h.bm25_score, h.vector_score) for h in reference]
    assert fresh and all(h.vector_score is not None for h in fresh if h.bm25_score is None)
